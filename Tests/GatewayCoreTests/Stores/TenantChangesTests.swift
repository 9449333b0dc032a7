import Foundation
import Logging
import Synchronization
import Testing
@testable import GatewayCore

/// Replicas learn which tenants changed and read only those (issue 12, item 1).
@Suite("Tenant change feed and incremental reload")
struct TenantChangesTests {
    /// A page of tenants is read as a page (the console's overview of 1,000 tenants), in the
    /// order and after the cursor ``TenantStore/allTenants()`` implies.
    @Test(arguments: StoreBackend.available) func aPageOfTenantsIsOnePage(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let ids = ["a-1", "a-10", "a-2", "bb", "zz"]
        for id in ids.shuffled() { try await database.stores.tenants.create(Tenant(id: id, displayName: id), actor: "t") }
        let all = try await database.stores.tenants.allTenants().map(\.id)
        #expect(all == ids.sorted())
        #expect(try await database.stores.tenants.tenants(after: nil, limit: 2).map(\.id) == Array(all.prefix(2)))
        #expect(try await database.stores.tenants.tenants(after: "a-10", limit: 2).map(\.id) == ["a-2", "bb"])
        #expect(try await database.stores.tenants.tenants(after: "bb", limit: 10).map(\.id) == ["zz"])
        #expect(try await database.stores.tenants.tenants(after: "zz", limit: 10).isEmpty)
    }

    @Test(arguments: StoreBackend.available) func theStoreNamesWhatChanged(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.tenants
        let start = try await store.changeToken()
        try await store.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        try await store.create(Tenant(id: "beta", displayName: "Beta"), actor: "t")
        let middle = try await store.changeToken()
        try await store.update(id: "acme", actor: "t") { $0.displayName = "Acme 2" }
        try await store.delete(id: "beta", actor: "t")
        try await store.importTenants(
            [Tenant(id: "gamma", displayName: "Gamma"), Tenant(id: "delta", displayName: "Delta")], actor: "t")
        try await database.stores.localization.set(["k": "v"], tenantID: "gamma", locale: "en")
        try await database.stores.domains.add(host: "links.delta.example", tenantID: "delta", appIDs: [])
        let end = try await store.changeToken()

        let other = try await database.another().tenants
        #expect(
            try await other.changedTenants(after: start)
                == TenantChanges(tenantIDs: ["acme", "beta", "gamma", "delta"], token: end))
        #expect(
            try await other.changedTenants(after: middle)
                == TenantChanges(tenantIDs: ["acme", "beta", "gamma", "delta"], token: end))
        #expect(try await other.changedTenants(after: end) == TenantChanges(tenantIDs: [], token: end))
        // A failed write records nothing.
        await #expect(throws: TenantStoreError.self) {
            try await store.update(id: "acme", actor: "t") { $0.theme.primaryColor = "red" }
        }
        #expect(try await other.changedTenants(after: end) == TenantChanges(tenantIDs: [], token: end))
    }

    @Test func aTokenOlderThanTheFeedMeansReloadEverything() {
        #expect(
            TenantChanges.answer(after: 5, current: 9, ids: ["a"], oldest: 6)
                == TenantChanges(tenantIDs: ["a"], token: 9))
        #expect(TenantChanges.answer(after: 5, current: 9, ids: ["a"], oldest: 7) == nil, "change 6 was pruned")
        #expect(
            TenantChanges.answer(after: 5, current: 9, ids: [], oldest: nil) == nil,
            "changes from before the feed existed")
        #expect(
            TenantChanges.answer(after: 9, current: 9, ids: [], oldest: nil) == TenantChanges(tenantIDs: [], token: 9))
    }

    /// With 2,000 tenants loaded, one change costs one tenant read, not 2,000; a deleted
    /// tenant leaves the snapshot; another process's write is seen.
    @Test(arguments: StoreBackend.available) func aRefreshReadsOnlyWhatChanged(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.importTenants(
            (0..<2_000).map { Tenant(id: String(format: "t%04d", $0), displayName: "T\($0)") }, actor: "t")
        let counting = CountingTenantStore(database.stores.tenants)
        let directory = TenantDirectory(store: counting, logger: Logger(label: "test"))
        try await directory.reload()
        #expect(directory.tenants.count == 2_000)
        let writer = try await database.another().tenants
        try await writer.update(id: "t0042", actor: "ops") { $0.displayName = "changed" }
        try await writer.delete(id: "t0007", actor: "ops")
        let loadsBefore = counting.allTenantsCalls
        #expect(try await directory.refresh() == 2)
        #expect(counting.allTenantsCalls == loadsBefore)
        #expect(directory.tenant("t0042")?.displayName == "changed")
        #expect(directory.tenant("t0007") == nil)
        #expect(directory.tenants.count == 1_999)
        #expect(try await directory.refresh() == 0)
    }

    /// PostgreSQL announces a change at commit: with a one-minute poll, a replica still sees
    /// another process's change within a second.
    @Test(arguments: StoreBackend.postgresOnly) func notificationsBeatThePoll(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let directory = TenantDirectory(store: database.stores.tenants, signal: database.stores.tenantChanges,
                                        pollInterval: .seconds(60), logger: Logger(label: "test"))
        try await directory.reload()
        let writer = try await database.another().tenants
        // A change the snapshot has not seen: the directory refreshes once its listener is
        // connected, so seeing it means notifications are flowing.
        try await writer.update(id: "acme", actor: "ops") { $0.displayName = "Acme 0" }
        let running = Task { try await directory.run() }
        defer { running.cancel() }
        #expect(await eventually { directory.tenant("acme")?.displayName == "Acme 0" })
        for round in 1 ... 3 {
            let started = ContinuousClock.now
            try await writer.update(id: "acme", actor: "ops") { $0.displayName = "Acme \(round)" }
            let seen = await eventually { directory.tenant("acme")?.displayName == "Acme \(round)" }
            #expect(
                seen && ContinuousClock.now - started < .seconds(1),
                "round \(round): change seen after \(ContinuousClock.now - started)")
        }
    }
}

/// A real store that counts full loads (what the incremental refresh must avoid).
final class CountingTenantStore: TenantStore {
    private let base: any TenantStore
    private let loads = Mutex(0)

    init(_ base: any TenantStore) { self.base = base }

    var allTenantsCalls: Int { loads.withLock { $0 } }

    func allTenants() async throws -> [Tenant] {
        loads.withLock { $0 += 1 }
        return try await base.allTenants()
    }
    func tenant(id: String) async throws -> Tenant? { try await base.tenant(id: id) }
    func tenants(after: String?, limit: Int) async throws -> [Tenant] {
        try await base.tenants(after: after, limit: limit)
    }
    func create(_ tenant: Tenant, actor: String, trail: (@Sendable (Tenant) -> AuditDraft)?) async throws -> Tenant {
        try await base.create(tenant, actor: actor, trail: trail)
    }
    func update(
        id: String, actor: String, trail: (@Sendable (Tenant, Tenant) -> AuditDraft)?,
        _ change: @Sendable (inout Tenant) throws -> Void
    ) async throws -> Tenant {
        try await base.update(id: id, actor: actor, trail: trail, change)
    }
    func delete(id: String, actor: String) async throws { try await base.delete(id: id, actor: actor) }
    func importTenants(_ tenants: [Tenant], actor: String) async throws {
        try await base.importTenants(tenants, actor: actor)
    }
    func auditLog(tenantID: String?, limit: Int) async throws -> [TenantAuditEntry] {
        try await base.auditLog(tenantID: tenantID, limit: limit)
    }
    func changeToken() async throws -> Int64 { try await base.changeToken() }
    func changedTenants(after token: Int64) async throws -> TenantChanges? {
        try await base.changedTenants(after: token)
    }
    func ping() async throws { try await base.ping() }
}
