import Foundation
import Testing
@testable import GatewayCore
@testable import GatewaySQLite

@Suite struct HostAppStoreTests {
    @Test func hostAppAndFlagsRoundTripThroughTwoInstances() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Fixtures.store(folder)
        let created = try await store.create(Fixtures.fullTenant(), actor: "alice")
        #expect(
            created.hostApp
                == HostAppVersionPolicy(
                    minimumVersion: "2.1", latestVersion: "2.4.0", updateURL: "https://apps.example.com/acme"))
        #expect(created.featureFlags == ["beta.checkout": true, "dark-mode": false])
        let other = try Fixtures.store(folder)
        #expect(try await other.tenant(id: "acme") == created)
    }

    @Test func changesAreAuditedAndBumpTheConfigVersion() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Fixtures.store(folder)
        try await store.create(Tenant(id: "acme", displayName: "Acme"), actor: "alice")
        let flagged = try await store.update(id: "acme", actor: "bob") { $0.featureFlags["beta"] = true }
        #expect(flagged.configVersion == 2)
        let flipped = try await store.update(id: "acme", actor: "bob") { $0.featureFlags["beta"] = false }
        #expect(flipped.configVersion == 3)
        let versions = try await store.update(id: "acme", actor: "carol") {
            $0.hostApp = HostAppVersionPolicy(
                minimumVersion: "1.0", latestVersion: "1.2", updateURL: "https://apps.example.com")
        }
        #expect(versions.configVersion == 4)
        let cleared = try await store.update(id: "acme", actor: "carol") { $0.hostApp.minimumVersion = nil }
        #expect(cleared.hostApp.minimumVersion == nil)
        let log = try await store.auditLog(tenantID: "acme", limit: 10)
        #expect(log.map(\.changedFields) == [
            ["hostApp.minimumVersion"],
            ["hostApp.minimumVersion", "hostApp.latestVersion", "hostApp.updateURL"],
            ["featureFlags"],
            ["featureFlags"],
            ["displayName"],
        ])
        #expect(log.map(\.configVersion) == [5, 4, 3, 2, 1])
    }

    @Test func invalidHostAppChangesWriteNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Fixtures.store(folder)
        try await store.create(
            Tenant(id: "acme", displayName: "Acme", hostApp: HostAppVersionPolicy(latestVersion: "2.0")), actor: "t")
        let token = try await store.changeToken()
        await #expect(throws: TenantStoreError.self) {
            try await store.update(id: "acme", actor: "t") { $0.hostApp.minimumVersion = "2.1" }
        }
        await #expect(throws: TenantStoreError.self) {
            try await store.update(id: "acme", actor: "t") { $0.featureFlags["Bad Name"] = true }
        }
        #expect(try await store.changeToken() == token)
        #expect(try await store.tenant(id: "acme")?.configVersion == 1)
    }

    @Test(arguments: StoreBackend.available) func aDatabaseFromBeforeTheHostAppMigrationOpensAndReads(
        backend: StoreBackend
    ) async throws {
        let migrations = SQLiteTenantStore.knownMigrations
        let hostAppIndex = try #require(migrations.firstIndex(of: "v3-host-app"))
        // The database as the previous build left it: its migrations, a tenant row of its columns.
        let database = try await TestDatabase.make(backend, migrateUpTo: migrations[hostAppIndex - 1])
        defer { database.remove() }
        try await database.execute(Fixtures.v1TenantRow(id: "legacy", configVersion: 9))
        #expect(try await database.stores.schema.applied() == Array(migrations[...(hostAppIndex - 1)]))
        try await database.migrate()
        let store = database.stores.tenants
        #expect(try await database.stores.schema.applied() == migrations)
        let legacy = try #require(try await store.tenant(id: "legacy"))
        #expect(legacy.hostApp == HostAppVersionPolicy())
        #expect(legacy.featureFlags.isEmpty)
        #expect(legacy.cacheRules == ClientCacheRules(maxCount: 3, maxDays: 7))
        #expect(legacy.configVersion == 9)
        let updated = try await store.update(id: "legacy", actor: "t") {
            $0.featureFlags = ["beta": true]
            $0.hostApp.latestVersion = "2.4"
        }
        #expect(updated.configVersion == 10)
        #expect(try await database.another().tenants.tenant(id: "legacy") == updated)
    }
}
