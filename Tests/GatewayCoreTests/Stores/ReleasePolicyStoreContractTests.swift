import Foundation
import Logging
import Testing
@testable import GatewayCore

/// The release-policy store's contract, on every engine (issue 29).
@Suite("Release policy store contract")
struct ReleasePolicyStoreContractTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func policy(_ miniAppID: String = "app1") -> ReleasePolicy {
        ReleasePolicy(
            tenantID: "acme", miniAppID: miniAppID, stable: "1.0",
            candidate: ReleaseCandidate(
                version: "1.1", percent: RolloutPercent("10")!,
                steps: [RolloutStep(percent: RolloutPercent("50")!, at: start.addingTimeInterval(3600))],
                allowUsers: ["qa-1", "qa-2"], denyUsers: ["vip-1"],
                segment: ReleaseSegment(hostVersions: HostVersionRange(">=2.4 <3"), platforms: [.ios], locales: ["ja"])))
    }

    static func entry(_ action: ReleaseAction, at offset: TimeInterval = 0, reason: String? = nil) -> ReleaseHistoryEntry {
        ReleaseHistoryEntry(
            at: start.addingTimeInterval(offset), actor: "ops", action: action, summary: "\(action)", reason: reason)
    }

    @Test(arguments: StoreBackend.available) func savesReadsAndAnnounces(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let store = database.stores.releases
        let before = try await database.stores.tenants.changeToken()
        let saved = try await store.save(Self.policy(), entry: Self.entry(.set, reason: "first cohort"))
        #expect(saved.revision == 1 && saved.updatedAt == Self.start)

        // Another instance (another replica) reads exactly what was stored, and learns the tenant changed.
        let other = try await database.another()
        #expect(try await other.releases.policy(tenantID: "acme", miniAppID: "app1") == saved)
        #expect(try await other.releases.policy(tenantID: "acme", miniAppID: "nope") == nil)
        #expect(try await other.tenants.changedTenants(after: before)?.tenantIDs == ["acme"])

        var paused = saved
        paused.candidate?.state = .paused
        let second = try await store.save(paused, entry: Self.entry(.pause, at: 60))
        _ = try await store.save(Self.policy("app0"), entry: Self.entry(.set, at: 120))
        #expect(second.revision == 2)
        #expect(try await other.releases.policies(tenantID: "acme").map(\.miniAppID) == ["app0", "app1"])
        #expect(try await other.releases.policies(tenantID: "other") == [])
        #expect(
            try await other.releases.history(tenantID: "acme", miniAppID: "app1", limit: 10)
                == [Self.entry(.pause, at: 60), Self.entry(.set, reason: "first cohort")])
        #expect(try await other.releases.history(tenantID: "acme", miniAppID: "app1", limit: 1).map(\.action) == [.pause])
    }

    @Test(arguments: StoreBackend.available) func aReplicaTableFollowsTheTenantDirectory(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        for id in ["acme", "beta"] {
            try await database.stores.tenants.create(Tenant(id: id, displayName: id), actor: "t")
        }
        _ = try await database.stores.releases.save(Self.policy(), entry: Self.entry(.set))
        var beta = Self.policy()
        beta.tenantID = "beta"
        _ = try await database.stores.releases.save(beta, entry: Self.entry(.set))

        // A replica: its own connections, a directory that the release table follows.
        let replica = try await database.another()
        let table = ReleaseTable(store: replica.releases)
        let directory = TenantDirectory(store: replica.tenants, followers: [table], logger: Logger(label: "test"))
        try await directory.reload()
        #expect(table.policy(tenantID: "acme", miniAppID: "app1")?.revision == 1)
        #expect(table.policy(tenantID: "beta", miniAppID: "app1")?.revision == 1)
        #expect(table.hasPolicies(tenantID: "acme") && !table.hasPolicies(tenantID: "gamma"))

        // An operator withdraws on acme: one refresh of the directory brings it, beta untouched.
        let service = ReleaseService(store: database.stores.releases)
        _ = try await service.withdraw(
            .init(tenantID: "acme", miniAppID: "app1", actor: "ops"), version: "1.1", useInstead: "1.0")
        #expect(try await directory.refresh() == 1)
        #expect(table.policy(tenantID: "acme", miniAppID: "app1")?.isWithdrawn("1.1") == true)
        #expect(table.policy(tenantID: "beta", miniAppID: "app1")?.revision == 1)

        // A deleted tenant's policies leave the table with it.
        try await database.stores.tenants.delete(id: "beta", actor: "t")
        try await directory.refresh()
        #expect(!table.hasPolicies(tenantID: "beta"))
    }

    @Test(arguments: StoreBackend.available) func aStaleWriteIsRefusedAndWritesNothing(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let store = database.stores.releases
        let saved = try await store.save(Self.policy(), entry: Self.entry(.set))
        // Two operators read revision 1; the second write must not overwrite the first.
        var first = saved
        first.stable = "1.0.1"
        _ = try await store.save(first, entry: Self.entry(.rollback, at: 10))
        var stale = saved
        stale.candidate = nil
        await #expect(throws: ReleasePolicyError.conflict(storedRevision: 2)) {
            try await store.save(stale, entry: Self.entry(.promote, at: 20))
        }
        // A second "new" policy for the same mini app is a conflict too.
        await #expect(throws: ReleasePolicyError.conflict(storedRevision: 2)) {
            try await store.save(Self.policy(), entry: Self.entry(.set, at: 30))
        }
        #expect(try await store.policy(tenantID: "acme", miniAppID: "app1")?.stable == "1.0.1")
        #expect(try await store.history(tenantID: "acme", miniAppID: "app1", limit: 10).map(\.action) == [.rollback, .set])
    }

    @Test(arguments: StoreBackend.available) func concurrentWritersOneWinsPerRevision(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let stores = [database.stores, try await database.another()]
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    (try? await stores[index % 2].releases.save(Self.policy(), entry: Self.entry(.set))) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try await database.stores.releases.history(tenantID: "acme", miniAppID: "app1", limit: 10).count == 1)
    }

    @Test(arguments: StoreBackend.available) func deletingTheTenantDeletesItsPolicies(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        _ = try await database.stores.releases.save(Self.policy(), entry: Self.entry(.set))
        try await database.stores.tenants.delete(id: "acme", actor: "t")
        #expect(try await database.stores.releases.policies(tenantID: "acme") == [])
        // The history is the audit trail's, which outlives the tenant (its deletion is in it too).
        #expect(try await database.stores.releases.history(tenantID: "acme", miniAppID: "app1", limit: 10) == [Self.entry(.set)])
        #expect(try await database.stores.tenants.auditLog(tenantID: "acme", limit: 10).map(\.action) == ["delete", "create"])
    }
}
