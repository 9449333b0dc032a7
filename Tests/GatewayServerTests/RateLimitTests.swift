import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Rate limiting per tenant and per client id")
struct RateLimitTests {
    @Test("over the tenant limit → 429 rate_limited with Retry-After; the next window starts afresh")
    func perTenant() async throws {
        let time = ManualClock.startOfWindow(60)
        try await GatewayHarness.withGateway(rateLimits: .init(perTenant: 3), clock: time.clock) { harness, client, _ in
            let id = uniqueTenantID("rl")
            // No sign-in: its OAuth requests would count against the 3-request tenant budget.
            try await harness.createTenant(Tenant(id: id, displayName: "Limited"), signIn: false)
            for _ in 0..<3 { _ = try await client.getHostConfig(path: .init(tenant: id)).ok }
            let limited = try await client.getHostConfig(path: .init(tenant: id)).tooManyRequests
            let seconds = try #require(limited.headers.retryAfter.flatMap(Int.init))
            // One second into the window: the rest of it.
            #expect(seconds == 59)
            #expect(try limited.body.applicationProblemJson.code == "rate_limited")
            time.advance(by: .seconds(58))
            #expect(try await client.getHostConfig(path: .init(tenant: id)).tooManyRequests.headers.retryAfter == "1")
            time.advance(by: .seconds(1))
            _ = try await client.getHostConfig(path: .init(tenant: id)).ok
        }
    }

    @Test("over the per-client limit → 429 for that client only")
    func perClient() async throws {
        try await GatewayHarness.withGateway(
            rateLimits: .init(perClient: 2), clock: ManualClock.startOfWindow(60).clock
        ) { harness, _, port in
            let id = uniqueTenantID("rlc")
            try await harness.createTenant(Tenant(id: id, displayName: "Limited"))
            func status(_ clientID: String) async throws -> (UInt, String?) {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/t/\(id)/v1/host-config")
                request.headers.add(name: "X-Client-Id", value: clientID)
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
                _ = try await response.body.collect(upTo: 1 << 20)
                return (response.status.code, response.headers.first(name: "Retry-After"))
            }
            #expect(try await status("app-a").0 == 200)
            #expect(try await status("app-a").0 == 200)
            let third = try await status("app-a")
            #expect(third.0 == 429)
            #expect(third.1 != nil)
            #expect(try await status("app-b").0 == 200)
        }
    }
}
