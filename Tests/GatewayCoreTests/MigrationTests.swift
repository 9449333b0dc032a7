import Foundation
import GatewayPostgres
import GRDB
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

    /// Issue 32: with an index on `family_id` alone, the delete every refresh runs walked every
    /// access-token record of the family; a client refreshing fast made each refresh slower.
    @Test("a refresh's cleanup of expired access-token records seeks by (family, expiry)")
    func familyAccessTokenCleanupUsesItsIndex() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Fixtures.store(folder)
        let plan = try await store.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN DELETE FROM auth_family_access_tokens WHERE family_id = ? AND expires_at_ms < ?
                    """, arguments: ["f", 0]
            ).map { $0["detail"] as String }.joined(separator: "\n")
        }
        #expect(plan.contains("auth_family_access_tokens_family_expiry (family_id=? AND expires_at_ms<?)"), "\(plan)")
    }

    @Test("both engines know the same migrations, by name, in order")
    func enginesAgreeOnMigrations() {
        #expect(PostgresStores.knownMigrations == SQLiteTenantStore.knownMigrations)
    }

    /// Issue 62: clients registered before scopes keep what their tokens could use (the host
    /// app's surface, sign-in requests only a first-party client's), and so do their live
    /// sessions; senders gain nothing.
    @Test(arguments: StoreBackend.available) func clientsRegisteredBeforeScopesKeepTheirDoors(
        backend: StoreBackend
    ) async throws {
        let database = try await TestDatabase.make(backend, migrateUpTo: "v34-operator-sessions")
        defer { database.remove() }
        let documents = [
            ("app", #"{"tenantID":"acme","clientID":"app","confidential":false,"redirectURIs":["a:/cb"],"postLogoutRedirectURIs":[],"allowedScopes":["openid"],"requirePAR":false,"dpopBound":false,"accessTokenLifetimeSeconds":600,"refreshIdleLifetimeSeconds":60,"refreshAbsoluteLifetimeSeconds":60,"firstParty":true}"#),
            ("web", #"{"tenantID":"acme","clientID":"web","confidential":false,"redirectURIs":["https://w/cb"],"postLogoutRedirectURIs":[],"allowedScopes":["openid"],"requirePAR":false,"dpopBound":false,"accessTokenLifetimeSeconds":600,"refreshIdleLifetimeSeconds":60,"refreshAbsoluteLifetimeSeconds":60}"#),
            ("shop", #"{"tenantID":"acme","clientID":"shop","confidential":true,"redirectURIs":[],"postLogoutRedirectURIs":[],"allowedScopes":["notifications:send"],"requirePAR":false,"dpopBound":false,"accessTokenLifetimeSeconds":600,"refreshIdleLifetimeSeconds":60,"refreshAbsoluteLifetimeSeconds":60,"grantTypes":["client_credentials"],"miniApps":["m"]}"#),
        ]
        for (id, document) in documents {
            try await database.execute(
                "INSERT INTO auth_clients (tenant_id, client_id, document, secret_hash, created_at_ms) VALUES ('acme', '\(id)', '\(document)', NULL, 0)")
        }
        for (family, client, revoked) in [("f-app", "app", "0"), ("f-web", "web", "0"), ("f-old", "web", "1")] {
            try await database.execute(
                """
                INSERT INTO auth_refresh_families (family_id, tenant_id, client_id, subject, scope, nonce, dpop_jkt, revoked,
                    created_at_ms, absolute_expiry_ms, session_id, auth_time_ms)
                VALUES ('\(family)', 'acme', '\(client)', 'u', 'openid profile', NULL, NULL, '\(revoked)', 0, 1, 's', 0)
                """)
        }
        try await database.migrate()
        let auth = database.stores.auth
        #expect(try await auth.client(tenantID: "acme", clientID: "app")?.defaultScopes == APIScope.hostApp)
        #expect(
            try await auth.client(tenantID: "acme", clientID: "web")?.defaultScopes
                == APIScope.hostApp.filter { !APIScope.firstPartyOnly.contains($0) })
        let sender = try await auth.client(tenantID: "acme", clientID: "shop")
        #expect(sender?.defaultScopes == nil && sender?.isSender == true)
        let scope = { (family: String) in "SELECT count(*) FROM auth_refresh_families WHERE family_id = '\(family)' AND scope = " }
        #expect(
            try await database.integer(
                scope("f-app") + "'openid profile host miniapp-data messages devices sign-in-requests'") == 1)
        #expect(try await database.integer(scope("f-web") + "'openid profile host miniapp-data messages devices'") == 1)
        #expect(try await database.integer(scope("f-old") + "'openid profile'") == 1, "a revoked family stays as it was")
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
