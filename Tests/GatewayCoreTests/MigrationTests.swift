import Foundation
import Testing
@testable import GatewayCore

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
}
