import AsyncHTTPClient
import Foundation
import GatewayCore
import NIOCore
import NIOHTTP1
import Testing

/// Issue 30, sending: a sender queues a message for users over HTTP; consent decides which
/// devices get a pending delivery; retries with one Idempotency-Key are one message.
@Suite("Notifications over HTTP: senders queue, consent decides, idempotent retries, typed refusals")
struct NotificationEndpointTests {
    struct Reply {
        var status: Int
        var json: [String: JSONValue]
    }

    static func call(
        _ method: HTTPMethod, _ url: String, token: String, json: String? = nil, headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        let decoded = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(buffer: body))) ?? [:]
        return Reply(status: Int(response.status.code), json: decoded)
    }

    @Test("queue for a consenting user and one who did not consent; status; Idempotency-Key; refusals", arguments: DatabaseBackend.available)
    func sendAndStatus(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let user = try await kit.tokens()
            let userClient = kit.authorizedClient("Bearer \(user.accessToken)")
            _ = try await userClient.registerDevice(
                path: .init(tenant: "demo"), body: .json(.init(provider: .fcm, token: "phone-1", platform: .android))
            ).created
            let (subject, _) = try await PushDeliveryTests.Scene.allowNotifications(harness, username: kit.username)

            let token = try await ClientCredentialsTests.senderToken(kit, port: port)

            let base = "http://127.0.0.1:\(port)/t/demo/v1/notifications"
            let message = #"{"miniAppId": "shop", "to": {"userIds": ["\#(subject)", "someone-without-devices"]}, "text": {"default": {"title": "Shipped", "body": "Order 42"}}, "data": {"orderId": "42"}}"#
            let queued = try await Self.call(.POST, base, token: token, json: message, headers: [("Idempotency-Key", "order-42")])
            #expect(queued.status == 202, "\(queued.json)")
            guard case .string(let id)? = queued.json["id"] else { throw CancellationError() }
            let again = try await Self.call(.POST, base, token: token, json: message, headers: [("Idempotency-Key", "order-42")])
            #expect(again.status == 202 && again.json["id"] == .string(id))
            let conflict = try await Self.call(
                .POST, base, token: token, json: message.replacingOccurrences(of: "Order 42", with: "Order 43"),
                headers: [("Idempotency-Key", "order-42")])
            #expect(conflict.status == 409 && conflict.json["code"] == .string("idempotency_conflict"))

            let status = try await Self.call(.GET, "\(base)/\(id)", token: token)
            #expect(status.status == 200)
            guard case .object(let counts)? = status.json["counts"] else { throw CancellationError() }
            #expect(counts["pending"] == .number(1) && counts["skippedNoConsent"] == .number(0))

            // Refusals: another mini app, no default text, both recipients forms, a user token.
            let bank = try await Self.call(
                .POST, base, token: token,
                json: #"{"miniAppId": "bank", "to": {"all": true}, "text": {"default": {"title": "t", "body": "b"}}}"#)
            #expect(bank.status == 403 && bank.json["code"] == .string("sender_not_allowed"))
            for invalid in [
                #"{"miniAppId": "shop", "to": {"all": true}, "text": {"ja": {"title": "t", "body": "b"}}}"#,
                #"{"miniAppId": "shop", "to": {"all": true, "userIds": ["u"]}, "text": {"default": {"title": "t", "body": "b"}}}"#,
                #"{"miniAppId": "shop", "to": {"all": true}, "text": {"default": {"title": "t", "body": "b"}}, "link": "https://evil.example/x"}"#,
            ] {
                let refused = try await Self.call(.POST, base, token: token, json: invalid)
                #expect(refused.status == 422 && refused.json["code"] == .string("invalid_notification"), "\(invalid)")
            }
            #expect(try await Self.call(.POST, base, token: user.accessToken, json: message).status == 401)
            #expect(try await Self.call(.GET, "\(base)/msg_unknown", token: token).status == 404)
        }
    }

    @Test("over the tenant's send quota: 429 send_quota_exceeded with Retry-After, nothing queued; the next minute sends", arguments: DatabaseBackend.available)
    func sendQuota(backend: DatabaseBackend) async throws {
        let clock = ManualClock.startOfWindow(60)
        // In-process counters: the shared Redis also counts other tests' sends to tenant demo.
        try await GatewayHarness.withGateway(useRedis: false, backend: backend, clock: clock.clock, pushSendQuota: 2) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let token = try await ClientCredentialsTests.senderToken(kit, port: port)
            let base = "http://127.0.0.1:\(port)/t/demo/v1/notifications"
            func send(_ n: Int) async throws -> Reply {
                try await Self.call(
                    .POST, base, token: token,
                    json: #"{"miniAppId": "shop", "to": {"userIds": ["u1"]}, "text": {"default": {"title": "t\#(n)", "body": "b"}}}"#)
            }
            #expect(try await send(1).status == 202)
            #expect(try await send(2).status == 202)
            let refused = try await send(3)
            #expect(refused.status == 429 && refused.json["code"] == .string("send_quota_exceeded"), "\(refused.json)")
            let stored = try await harness.operatorStores.outbox.purge(expiredBefore: .distantFuture, limit: 100)
            #expect(stored == 2, "the refused message was queued")
            clock.advance(by: .seconds(60))
            #expect(try await send(4).status == 202)
        }
    }
}
