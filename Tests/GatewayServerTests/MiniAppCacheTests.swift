import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Cached mini-app answers: single-flight, invalidation, stale-if-error")
struct MiniAppCacheTests {
    @Test("200 concurrent cold requests for one manifest → exactly 1 upstream call")
    func stampede() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            fake.injectFault(.delay(.milliseconds(200)))
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("stampede")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let statuses = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<200 {
                        group.addTask {
                            if case .ok = try await client.getMiniAppManifest(
                                path: .init(tenant: id, id: "hello", versionId: "v1"))
                            {
                                return true
                            }
                            return false
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(statuses.count == 200)
                #expect(statuses.allSatisfy { $0 })
                #expect(fake.requests(matching: "/metadata").count == 1)
            }
        }
    }

    @Test("a change of the tenant's upstream settings invalidates its cached answers; a rename does not")
    func invalidation() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("inval")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let path = Operations.GetMiniAppManifest.Input.Path(tenant: id, id: "hello", versionId: "v1")
                _ = try await client.getMiniAppManifest(path: path).ok
                _ = try await client.getMiniAppManifest(path: path).ok
                #expect(fake.requests(matching: "/metadata").count == 1)
                try await harness.updateTenant(id) { $0.displayName = "Renamed" }
                _ = try await client.getMiniAppManifest(path: path).ok
                #expect(fake.requests(matching: "/metadata").count == 1, "a rename does not change the answers")
                try await harness.coldAnswers(id, round: "2")
                _ = try await client.getMiniAppManifest(path: path).ok
                #expect(fake.requests(matching: "/metadata").count == 2)
            }
        }
    }

    @Test("a platform slower than the stale grace: the stale copy answers without waiting for it")
    func staleWhileSlow() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            let time = ManualClock(Date())
            try await GatewayHarness.withGateway(clock: time.clock) { harness, client, _ in
                let id = uniqueTenantID("slow")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake, manifestTTL: 1))
                let path = Operations.GetMiniAppManifest.Input.Path(tenant: id, id: "hello", versionId: "v1")
                let first = try await client.getMiniAppManifest(path: path).ok
                // Slower than the 1 s grace, within the 5 s upstream budget: a partitioned
                // platform looks like this (found by `make chaos`, partition-upstream).
                fake.injectFault(.delay(.seconds(4)))
                time.advance(by: .milliseconds(2200))  // past fresh (1 s) and stale-while-revalidate (1 s)
                let asked = fake.requests(matching: "/metadata").count
                let started = ContinuousClock.now
                let stale = try await client.getMiniAppManifest(path: path).ok
                #expect(stale.headers.eTag == first.headers.eTag)
                #expect(ContinuousClock.now - started < .seconds(4), "waited for the platform")
                #expect(fake.requests(matching: "/metadata").count > asked, "the platform was asked all the same")
            }
        }
    }

    @Test("a stale copy still stands in for a platform that is down after an unrelated tenant change")
    func staleAfterRename() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            let time = ManualClock(Date())
            try await GatewayHarness.withGateway(clock: time.clock) { harness, client, _ in
                let id = uniqueTenantID("rename")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake, manifestTTL: 1))
                let path = Operations.GetMiniAppManifest.Input.Path(tenant: id, id: "hello", versionId: "v1")
                let first = try await client.getMiniAppManifest(path: path).ok
                // Found by `make chaos` (partition-upstream): a gatewayctl change while the
                // platform was cut off made every copy unreachable, and reads answered 504.
                try await harness.updateTenant(id) { $0.displayName = "Renamed" }
                fake.injectFault(.status(503))
                time.advance(by: .milliseconds(2200))  // past fresh (1 s) and stale-while-revalidate (1 s)
                let stale = try await client.getMiniAppManifest(path: path).ok
                #expect(stale.headers.eTag == first.headers.eTag)
            }
        }
    }

    @Test("while the platform is down, a stale copy is served; a cold key is 502 naming the upstream")
    func staleIfError() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            let time = ManualClock(Date())
            try await GatewayHarness.withGateway(clock: time.clock) { harness, client, _ in
                let id = uniqueTenantID("stale")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake, manifestTTL: 1))
                let path = Operations.GetMiniAppManifest.Input.Path(tenant: id, id: "hello", versionId: "v1")
                let first = try await client.getMiniAppManifest(path: path).ok
                fake.injectFault(.status(503))
                time.advance(by: .milliseconds(2200))  // past fresh (1 s) and stale-while-revalidate (1 s)
                let asked = fake.requests(matching: "/metadata").count
                let stale = try await client.getMiniAppManifest(path: path).ok
                #expect(stale.headers.eTag == first.headers.eTag)
                #expect(
                    fake.requests(matching: "/metadata").count > asked,
                    "served without asking the platform: not the stale path")
                let cold = try await client.getMiniAppManifest(path: .init(tenant: id, id: "hello", versionId: "v2"))
                let problem = try cold.badGateway.body.applicationProblemJson
                #expect(problem.code == "upstream_unavailable")
                #expect(problem.detail?.contains("mini-app platform") == true)
            }
        }
    }
}
