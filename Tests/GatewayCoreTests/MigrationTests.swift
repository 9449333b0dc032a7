import Foundation
import GatewayPostgres
import Testing
@testable import GatewayCore
@testable import GatewaySQLite

@Suite struct MigrationTests {
    @Test func migratesAnEmptyFileAndCreatesItsFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("nested/deeper/gateway.sqlite")
        let store = try SQLiteTenantStore(path: path, sealer: Fixtures.sealer, migrate: false)
        #expect(try store.appliedMigrations().isEmpty)
        try store.migrate()
        #expect(try store.appliedMigrations() == SQLiteTenantStore.knownMigrations)
        #expect(SQLiteTenantStore.knownMigrations.first == "v1-tenants")
        #expect(SQLiteTenantStore.knownMigrations.contains("userstate-v1"))
        #expect(SQLiteTenantStore.knownMigrations.contains("v2-auth"))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func migratingTwiceIsANoOp() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Fixtures.store(folder)
        try await store.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let token = try await store.changeToken()
        try store.migrate()
        try store.migrate()
        let reopened = try Fixtures.store(folder)
        #expect(try reopened.appliedMigrations() == SQLiteTenantStore.knownMigrations)
        #expect(try await reopened.changeToken() == token)
        #expect(try await reopened.allTenants().map(\.id) == ["acme"])
        try await reopened.ping()
    }

    @Test("both engines know the same migrations, by name, in order")
    func enginesAgreeOnMigrations() {
        #expect(PostgresStores.knownMigrations == SQLiteTenantStore.knownMigrations)
    }

    /// Three instances (processes) open one database at the same time: each migration is
    /// applied once, and all of them end up on the current schema.
    @Test(arguments: StoreBackend.available) func replicasMigratingTogetherApplyEachMigrationOnce(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend, migrateUpTo: "v1-tenants")
        defer { database.remove() }
        try await database.execute(Fixtures.v1TenantRow(id: "acme", configVersion: 1))
        async let first: Void = database.migrate()
        async let second = database.another()
        async let third = database.another()
        _ = try await (first, second, third)
        let applied = try await database.stores.schema.applied()
        #expect(applied == PostgresStores.knownMigrations)
        #expect(try await database.stores.tenants.allTenants().map(\.id) == ["acme"])
        if backend == .postgres {
            #expect(
                try await database.integer("SELECT count(*) FROM gateway_schema_migrations") == Int64(applied.count))
        }
    }
}
