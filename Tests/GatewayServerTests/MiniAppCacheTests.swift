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

    /// What a stale-copy test starts from: a tenant on `fake` with 1 s TTLs whose hello v1
    /// manifest was read once (`first`), and the gateway's clock to move past freshness.
    struct StaleScene: Sendable {
        let harness: GatewayHarness
        let client: Client
        let fake: FakePlatform
        let time: ManualClock
        let tenantID: String
        let path: Operations.GetMiniAppManifest.Input.Path
        let first: Operations.GetMiniAppManifest.Output.Ok

        /// Moves the clock past fresh (1 s) and stale-while-revalidate (1 s).
        func outliveFreshness() {
            time.advance(by: .milliseconds(2200))
        }
    }

    func withStaleScene(_ name: String, _ body: @Sendable (StaleScene) async throws -> Void) async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            let time = ManualClock(Date())
            try await GatewayHarness.withGateway(clock: time.clock) { harness, client, _ in
                let id = uniqueTenantID(name)
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake, manifestTTL: 1))
                let path = Operations.GetMiniAppManifest.Input.Path(tenant: id, id: "hello", versionId: "v1")
                let first = try await client.getMiniAppManifest(path: path).ok
                try await body(StaleScene(
                    harness: harness, client: client, fake: fake, time: time, tenantID: id, path: path, first: first))
            }
        }
    }

    @Test("while the platform is down, a stale copy is served; a cold key is 502 naming the upstream")
    func staleIfError() async throws {
        try await withStaleScene("stale") { scene in
            scene.fake.injectFault(.status(503))
            scene.outliveFreshness()
            let asked = scene.fake.requests(matching: "/metadata").count
            let stale = try await scene.client.getMiniAppManifest(path: scene.path).ok
            #expect(stale.headers.eTag == scene.first.headers.eTag)
            #expect(
                scene.fake.requests(matching: "/metadata").count > asked,
                "served without asking the platform: not the stale path")
            let cold = try await scene.client.getMiniAppManifest(
                path: .init(tenant: scene.tenantID, id: "hello", versionId: "v2"))
            let problem = try cold.badGateway.body.applicationProblemJson
            #expect(problem.code == "upstream_unavailable")
            #expect(problem.detail?.contains("mini-app platform") == true)
        }
    }

    @Test("a platform slower than the stale grace: the stale copy answers without waiting for it")
    func staleWhileSlow() async throws {
        try await withStaleScene("slow") { scene in
            // Slower than the 1 s grace, within the 5 s upstream budget: a partitioned
            // platform looks like this (found by `make chaos`, partition-upstream).
            scene.fake.injectFault(.delay(.seconds(4)))
            scene.outliveFreshness()
            let asked = scene.fake.requests(matching: "/metadata").count
            let started = ContinuousClock.now
            let stale = try await scene.client.getMiniAppManifest(path: scene.path).ok
            #expect(stale.headers.eTag == scene.first.headers.eTag)
            #expect(ContinuousClock.now - started < .seconds(4), "waited for the platform")
            #expect(scene.fake.requests(matching: "/metadata").count > asked, "the platform was asked all the same")
        }
    }

    @Test("a stale copy still stands in for a platform that is down after an unrelated tenant change")
    func staleAfterRename() async throws {
        try await withStaleScene("rename") { scene in
            // Found by `make chaos` (partition-upstream): a gatewayctl change while the
            // platform was cut off made every copy unreachable, and reads answered 504.
            try await scene.harness.updateTenant(scene.tenantID) { $0.displayName = "Renamed" }
            scene.fake.injectFault(.status(503))
            scene.outliveFreshness()
            let stale = try await scene.client.getMiniAppManifest(path: scene.path).ok
            #expect(stale.headers.eTag == scene.first.headers.eTag)
        }
    }
}
