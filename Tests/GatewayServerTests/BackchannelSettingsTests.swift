import AsyncHTTPClient
import Foundation
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// The tenant's CIBA settings (``CIBASettings``) as clients and the host app meet them.
extension BackchannelTests {
    @Test("a tenant that reveals unknown users answers unknown_user_id; its sign-in freshness decides the step-up")
    func tenantSettings() async throws {
        let time = ManualClock(Date())
        try await withWorld(clock: time.clock) { world in
            try await world.kit.harness.updateTenant("demo") {
                $0.ciba.revealUnknownUsers = true
                $0.ciba.recentSignInSeconds = 60
            }
            let unknown = try await world.ask(["login_hint": "nobody-\(UUID().uuidString.prefix(6))"])
            #expect(unknown.status == 400 && unknown.json["error"]?.stringValue == "unknown_user_id", "\(unknown)")

            let fresh = try #require(try await world.ask().json["auth_req_id"]?.stringValue)
            #expect(try await world.host(.POST, "/\(fresh)/approve").status == 204)
            time.advance(by: .seconds(61))
            let stale = try #require(try await world.ask().json["auth_req_id"]?.stringValue)
            let refused = try await world.host(.POST, "/\(stale)/approve")
            #expect(refused.status == 403 && refused.json["code"]?.stringValue == "step_up_required", "\(refused)")
            #expect(refused.json["detail"]?.stringValue?.contains("60 seconds") == true, "\(refused)")
        }
    }

    @Test("ping: an endpoint on a private address is never called unless the tenant allows it; the client can poll")
    func pingsToPrivateAddresses() async throws {
        try await FakeNotificationEndpoint.with { endpoint in
            try await withWorld(configure: {
                $0.backchannelMode = .ping
                $0.backchannelNotificationEndpoint = endpoint.url
            }) { world in
                func approved(token: String = "notify-\(UUID().uuidString)") async throws -> String {
                    let asked = try await world.ask(["client_notification_token": token])
                    let id = try #require(asked.json["auth_req_id"]?.stringValue, "\(asked)")
                    // The bearer secret is sealed in the shared cache, never kept in the clear.
                    let kept = try #require(
                        try await world.kit.harness.bootstrap.services.cache.get("ciba:demo:req:\(id)"))
                    #expect(!String(decoding: kept, as: UTF8.self).contains(token))
                    #expect(try await world.host(.POST, "/\(id)/approve").status == 204)
                    return id
                }
                @Sendable func counted(_ event: String) async throws -> Bool {
                    let line =
                        #"gateway_ciba_requests_total{tenant="demo",client="\#(world.clientID)",event="\#(event)"} 1"#
                    return try await StagedReleaseEndpointTests.text("\(world.base)/metrics").contains(line)
                }
                // The ping goes on its own after the answer: its count says when it is done.
                let refused = try await approved()
                #expect(try await eventually(within: .seconds(10)) { try await counted("ping_refused") })
                #expect(endpoint.pings.isEmpty)
                #expect(try await world.poll(refused).status == 200)

                try await world.kit.harness.updateTenant("demo") { $0.ciba.allowPrivateNotificationEndpoints = true }
                let pinged = try await approved(token: "notify-sealed-at-rest")
                #expect(try await eventually(within: .seconds(10)) { try await counted("pinged") })
                #expect(
                    endpoint.pings == [
                        .init(authorization: "Bearer notify-sealed-at-rest", body: #"{"auth_req_id":"\#(pinged)"}"#)
                    ])
            }
        }
    }
}
