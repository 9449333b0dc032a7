import Foundation
import GatewayCore
import PostgresNIO

/// ``TenantDomainStore`` on PostgreSQL (`tenant_domains`). Changes bump the store's change
/// counter, so gateways notice them.
public final class PostgresTenantDomainStore: TenantDomainStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    @discardableResult
    public func add(
        host: String, tenantID: String, appIDs: [String], androidApps: [AndroidApp],
        trail: (@Sendable (TenantDomain?, TenantDomain) -> AuditDraft)?
    ) async throws -> TenantDomain {
        let name = try TenantDomainError.host(host)
        let apps = try TenantDomainError.checked(appIDs: appIDs, androidApps: androidApps)
        let now = StoreClock.now()
        return try await database.transaction { connection in
            // Serialize adds of one host: the row lock when it exists, the primary key when two create it.
            let old = try await Self.fetch(connection, host: name, lock: true)
            let base = old ?? TenantDomain(host: name, tenantID: tenantID, appIDs: [], createdAt: now)
            guard base.tenantID == tenantID else {
                throw TenantDomainError.hostTaken(host: name, tenantID: base.tenantID)
            }
            let domain = try base.adding(appIDs: appIDs, androidApps: apps)
            let (ids, androids) = (try Self.encode(domain.appIDs), try Self.encode(domain.androidApps))
            try await connection.execute("""
                INSERT INTO tenant_domains (host, tenant_id, app_ids, android_apps, created_at_ms)
                VALUES (\(name), \(tenantID), \(ids), \(androids), \(StoreClock.milliseconds(domain.createdAt)))
                ON CONFLICT (host) DO UPDATE SET app_ids = excluded.app_ids, android_apps = excluded.android_apps
                """)
            try await PostgresTenantStore.bumpChangeCounter(connection, tenants: [tenantID])
            if let trail { _ = try await PostgresAuditTrail.append(trail(old, domain), on: connection) }
            return domain
        }
    }

    public func remove(host: String, tenantID: String, trail: (@Sendable (TenantDomain) -> AuditDraft)?) async throws {
        let name = try TenantDomainError.host(host)
        try await database.transaction { connection in
            guard let old = try await Self.fetch(connection, host: name, lock: true), old.tenantID == tenantID else {
                throw TenantDomainError.notFound(host: name)
            }
            _ = try await connection.execute("DELETE FROM tenant_domains WHERE host = \(name) AND tenant_id = \(tenantID)")
            try await PostgresTenantStore.bumpChangeCounter(connection, tenants: [tenantID])
            if let trail { _ = try await PostgresAuditTrail.append(trail(old), on: connection) }
        }
    }

    public func domain(host: String) async throws -> TenantDomain? {
        guard let name = try? TenantDomainError.host(host) else { return nil }
        return try await Self.fetch(database.pool, host: name, lock: false)
    }

    public func domains(tenantID: String?) async throws -> [TenantDomain] {
        let rows =
            if let tenantID {
                try await database.pool.all(
                    """
                    SELECT host, tenant_id, app_ids, android_apps, created_at_ms FROM tenant_domains WHERE tenant_id = \(tenantID) ORDER BY host COLLATE "C"
                    """, as: (String, String, String, String, Int64).self)
            } else {
                try await database.pool.all(
                    "SELECT host, tenant_id, app_ids, android_apps, created_at_ms FROM tenant_domains ORDER BY host COLLATE \"C\"",
                    as: (String, String, String, String, Int64).self)
            }
        return try rows.map(Self.domain)
    }

    private static func fetch(_ runner: some SQLRunner, host: String, lock: Bool) async throws -> TenantDomain? {
        let row =
            lock
            ? try await runner.first(
                "SELECT host, tenant_id, app_ids, android_apps, created_at_ms FROM tenant_domains WHERE host = \(host) FOR UPDATE",
                as: (String, String, String, String, Int64).self)
            : try await runner.first(
                "SELECT host, tenant_id, app_ids, android_apps, created_at_ms FROM tenant_domains WHERE host = \(host)",
                as: (String, String, String, String, Int64).self)
        return try row.map(domain)
    }

    private static func domain(_ row: (String, String, String, String, Int64)) throws -> TenantDomain {
        TenantDomain(
            host: row.0, tenantID: row.1, appIDs: try JSONDecoder().decode([String].self, from: Data(row.2.utf8)),
            androidApps: try JSONDecoder().decode([AndroidApp].self, from: Data(row.3.utf8)),
            createdAt: StoreClock.date(row.4))
    }

    private static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}
