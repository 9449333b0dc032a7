import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Upstream failures map to the contract's problems; retries only where safe")
struct MiniAppResilienceTests {
    @Test("malformed upstream JSON → 502 invalid_upstream_response")
    func malformed() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            fake.injectFault(.malformed)
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("bad")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let output = try await client.getMiniAppBundle(path: .init(tenant: id, id: "hello", versionId: "v1"))
                #expect(try output.badGateway.body.applicationProblemJson.code == "invalid_upstream_response")
            }
        }
    }

    @Test("429 passes Retry-After through, never invents one, and is not retried")
    func rateLimited() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("rl")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                fake.injectFault(.status(429, retryAfter: "7"), count: 1)
                let limited = try await client.getMiniApp(path: .init(tenant: id, id: "hello"))
                let response = try limited.tooManyRequests
                #expect(response.headers.retryAfter == "7")
                #expect(try response.body.applicationProblemJson.code == "upstream_rate_limited")
                #expect(fake.requests.count == 1)

                fake.injectFault(.status(429), count: 1)
                let bare = try await client.getMiniApp(path: .init(tenant: id, id: "alpha"))
                #expect(try bare.tooManyRequests.headers.retryAfter == nil)
                #expect(fake.requests.count == 2)
            }
        }
    }

    @Test("a 4xx is never retried; a 5xx is retried and then answered")
    func retries() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("retry")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                fake.injectFault(.status(403), count: 1)
                let refused = try await client.getMiniApp(path: .init(tenant: id, id: "hello"))
                #expect(try refused.badGateway.body.applicationProblemJson.code == "upstream_rejected")
                #expect(fake.requests.count == 1)

                fake.injectFault(.status(503), count: 2)
                _ = try await client.getMiniApp(path: .init(tenant: id, id: "alpha")).ok
                #expect(fake.requests.filter { $0.query["miniAppId"] == "alpha" }.count == 3)
            }
        }
    }

    @Test("a connection dropped mid-answer is retried; when it keeps dropping → 502 naming the platform")
    func connectionReset() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("reset")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                fake.injectFault(.reset, count: 1)
                let recovered = try await client.getMiniApp(path: .init(tenant: id, id: "hello")).ok.body.json
                #expect(recovered.id == "hello")
                #expect(fake.requests.filter { $0.query["miniAppId"] == "hello" }.count == 2)

                fake.injectFault(.reset)
                let failed = try await client.getMiniApp(path: .init(tenant: id, id: "alpha")).badGateway.body
                    .applicationProblemJson
                #expect(failed.code == "upstream_unavailable")
                #expect(failed.detail?.contains("platform") == true)
                fake.injectFault(nil)
            }
        }
    }

    @Test("an upstream slower than the request budget → 504 upstream_timeout")
    func timeout() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            fake.injectFault(.delay(.seconds(3)))
            try await GatewayHarness.withGateway(upstreamBudget: .milliseconds(300)) { harness, client, _ in
                let id = uniqueTenantID("slow")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let started = ContinuousClock.now
                let output = try await client.getMiniApp(path: .init(tenant: id, id: "hello"))
                #expect(try output.gatewayTimeout.body.applicationProblemJson.code == "upstream_timeout")
                #expect(ContinuousClock.now - started < .seconds(2))
            }
        }
    }
}
