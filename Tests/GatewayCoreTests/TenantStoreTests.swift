import Foundation
import Testing
@testable import GatewayCore

@Suite struct TenantStoreTests {
    @Test(arguments: StoreBackend.available) func everyFieldRoundTrips(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.tenants
        let created = try await store.create(Fixtures.fullTenant(), actor: "alice")
        var expected = Fixtures.fullTenant()
        expected.createdAt = created.createdAt
        expected.updatedAt = created.updatedAt
        #expect(created == expected)
        #expect(try await store.tenant(id: "acme") == created)
        // A second instance (another process) reads the same thing.
        let other = try await database.another().tenants
        #expect(try await other.allTenants() == [created])
    }

    @Test(arguments: StoreBackend.available) func updateBumpsVersionStampsTimeAndAuditsFieldNames(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.tenants
        let created = try await store.create(Tenant(id: "acme", displayName: "Acme"), actor: "alice")
        _ = await eventually { StoreClock.now() > created.updatedAt }  // a later update time
        let updated = try await store.update(id: "acme", actor: "bob") {
            $0.displayName = "Acme 2"
            $0.platform.subscriptionKey = SecretValue("ras-new-secret-value")
        }
        #expect(updated.configVersion == 2)
        #expect(updated.updatedAt > created.updatedAt)
        #expect(updated.createdAt == created.createdAt)
        let suspended = try await store.update(id: "acme", actor: "carol") { $0.status = .suspended }
        let log = try await store.auditLog(tenantID: "acme", limit: 10)
        #expect(log.map(\.action) == ["suspend", "update", "create"])
        #expect(log[0].configVersion == suspended.configVersion)
        #expect(log[1].changedFields == ["displayName", "platform.subscriptionKey"])
        #expect(log[1].actor == "bob")
        #expect(!log.contains { $0.changedFields.contains { $0.contains("ras-") } })
    }

    @Test(arguments: StoreBackend.available) func refusesInvalidTenantsWritingNothing(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.tenants
        try await store.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let token = try await store.changeToken()
        await #expect(
            throws: TenantStoreError.invalid(
                "id must be 2-63 characters of a-z, 0-9 and '-', starting with a letter or digit, got \"A\"")
        ) {
            try await store.create(Tenant(id: "A", displayName: "x"), actor: "t")
        }
        await #expect(throws: TenantStoreError.self) {
            try await store.update(id: "acme", actor: "t") { $0.theme.primaryColor = "red" }
        }
        await #expect(throws: TenantStoreError.alreadyExists("acme")) {
            try await store.create(Tenant(id: "acme", displayName: "again"), actor: "t")
        }
        await #expect(throws: TenantStoreError.notFound("nope")) {
            try await store.update(id: "nope", actor: "t") { $0.displayName = "x" }
        }
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await store.update(id: "acme", actor: "t") { _ in throw Abort() }
        }
        #expect(try await store.changeToken() == token)
        #expect(try await store.tenant(id: "acme")?.configVersion == 1)
        #expect(try await store.auditLog(tenantID: nil, limit: 100).count == 1)
    }

    @Test(arguments: StoreBackend.available) func deleteChangesTheTokenAndKeepsTheAudit(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.tenants
        try await store.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let token = try await store.changeToken()
        try await store.delete(id: "acme", actor: "t")
        #expect(try await store.changeToken() != token)
        #expect(try await store.tenant(id: "acme") == nil)
        #expect(try await store.auditLog(tenantID: "acme", limit: 10).map(\.action) == ["delete", "create"])
        await #expect(throws: TenantStoreError.notFound("acme")) { try await store.delete(id: "acme", actor: "t") }
    }

    @Test(arguments: StoreBackend.available) func importIsAllOrNothing(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.tenants
        var bad = Tenant(id: "bad", displayName: "Bad")
        bad.platform.baseURL = "ftp://x"
        await #expect(throws: TenantStoreError.self) {
            try await store.importTenants([Fixtures.fullTenant(), bad], actor: "t")
        }
        #expect(try await store.allTenants().isEmpty)
        #expect(try await store.changeToken() == 0)

        var existing = try await store.create(Tenant(id: "acme", displayName: "Old"), actor: "t")
        existing = try await store.update(id: "acme", actor: "t") { $0.displayName = "Older" }
        try await store.importTenants([Fixtures.fullTenant(), Fixtures.fullTenant(id: "beta")], actor: "importer")
        let acme = try #require(try await store.tenant(id: "acme"))
        #expect(acme.displayName == Fixtures.fullTenant().displayName)
        #expect(acme.configVersion == existing.configVersion + 1)
        #expect(try await store.tenant(id: "beta")?.platform.subscriptionKey?.plaintext == "ras-K1-SECRET-MARKER")
        #expect(try await store.auditLog(tenantID: "beta", limit: 5).first?.action == "import")
    }

    @Test(arguments: StoreBackend.available) func demoTenantIsSeededOnlyIntoAnEmptyStore(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.tenants
        #expect(try await DemoTenant.seedIfEmpty(store: store, actor: "gateway"))
        #expect(try await store.tenant(id: "demo")?.displayName == "Demo Super App")
        #expect(try await store.tenant(id: "demo")?.platform.baseURL == nil)
        #expect(try await DemoTenant.seedIfEmpty(store: store, actor: "gateway") == false)
        #expect(try await store.allTenants().count == 1)
    }
}
