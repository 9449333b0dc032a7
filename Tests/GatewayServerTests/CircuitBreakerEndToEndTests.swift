import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Circuit breaker per tenant × upstream, end to end")
struct CircuitBreakerEndToEndTests {
    @Test("failures open the breaker: calls stop reaching the platform (503), stale copies still served")
    func opensAndServesStale() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            let time = ManualClock(Date())
            try await GatewayHarness.withGateway(clock: time.clock) { harness, client, _ in
                let id = uniqueTenantID("breaker")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake, manifestTTL: 1))
                let path = Operations.GetMiniAppManifest.Input.Path(tenant: id, id: "hello", versionId: "v1")
                let cached = try await client.getMiniAppManifest(path: path).ok

                fake.injectFault(.status(500))
                // Default breaker: ≥ 10 calls in a 10 s window, ≥ 50% failed → open.
                var opened = false
                for index in 0..<30 where !opened {
                    let output = try await client.getMiniApp(path: .init(tenant: id, id: "cold\(index)"))
                    if case .serviceUnavailable(let refused) = output {
                        #expect(try refused.body.applicationProblemJson.code == "upstream_circuit_open")
                        opened = true
                    } else {
                        _ = try output.badGateway
                    }
                }
                #expect(opened)
                let before = fake.requests.count
                let refused = try await client.getMiniApp(path: .init(tenant: id, id: "cold-next"))
                #expect(try refused.serviceUnavailable.body.applicationProblemJson.code == "upstream_circuit_open")
                #expect(fake.requests.count == before, "an open breaker does not call the platform")

                time.advance(by: .milliseconds(2100))  // the cached manifest is now past fresh + SWR
                let stale = try await client.getMiniAppManifest(path: path).ok
                #expect(stale.headers.eTag == cached.headers.eTag)
                #expect(fake.requests.count == before)

                // Another tenant on the same platform has its own breaker.
                let other = uniqueTenantID("breaker2")
                try await harness.createTenant(GatewayHarness.tenant(other, on: fake))
                fake.injectFault(nil)
                _ = try await client.getMiniApp(path: .init(tenant: other, id: "hello")).ok
            }
        }
    }
}
