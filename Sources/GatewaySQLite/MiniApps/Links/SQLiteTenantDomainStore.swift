import Foundation
import GatewayCore
import GRDB

/// ``TenantDomainStore`` in the tenant store's SQLite file (`tenant_domains`).
/// Changes bump the store's change counter, so gateways notice them.
public final class SQLiteTenantDomainStore: TenantDomainStore {
    private let pool: DatabasePool

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
    }

    @discardableResult
    public func add(
        host: String, tenantID: String, appIDs: [String], androidApps: [AndroidApp],
        trail: (@Sendable (TenantDomain?, TenantDomain) -> AuditDraft)?
    ) async throws -> TenantDomain {
        let name = try TenantDomainError.host(host)
        let apps = try TenantDomainError.checked(appIDs: appIDs, androidApps: androidApps)
        let now = StoreClock.now()
        return try await pool.write { db in
            let old = try Self.fetch(db, host: name)
            let base = old ?? TenantDomain(host: name, tenantID: tenantID, appIDs: [], createdAt: now)
            guard base.tenantID == tenantID else {
                throw TenantDomainError.hostTaken(host: name, tenantID: base.tenantID)
            }
            let domain = try base.adding(appIDs: appIDs, androidApps: apps)
            try db.execute(
                sql: """
                    INSERT INTO tenant_domains (host, tenant_id, app_ids, android_apps, created_at_ms)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (host) DO UPDATE SET app_ids = excluded.app_ids, android_apps = excluded.android_apps
                    """,
                arguments: [
                    name, tenantID, try Self.encode(domain.appIDs), try Self.encode(domain.androidApps),
                    StoreClock.milliseconds(domain.createdAt),
                ])
            try SQLiteTenantStore.bumpChangeCounter(db, tenants: [tenantID])
            if let trail { _ = try SQLiteAuditTrail.append(trail(old, domain), in: db) }
            return domain
        }
    }

    public func remove(host: String, tenantID: String, trail: (@Sendable (TenantDomain) -> AuditDraft)?) async throws {
        let name = try TenantDomainError.host(host)
        try await pool.write { db in
            guard let old = try Self.fetch(db, host: name), old.tenantID == tenantID else {
                throw TenantDomainError.notFound(host: name)
            }
            try db.execute(
                sql: "DELETE FROM tenant_domains WHERE host = ? AND tenant_id = ?", arguments: [name, tenantID])
            try SQLiteTenantStore.bumpChangeCounter(db, tenants: [tenantID])
            if let trail { _ = try SQLiteAuditTrail.append(trail(old), in: db) }
        }
    }

    public func domain(host: String) async throws -> TenantDomain? {
        guard let name = try? TenantDomainError.host(host) else { return nil }
        return try await pool.read { db in try Self.fetch(db, host: name) }
    }

    public func domains(tenantID: String?) async throws -> [TenantDomain] {
        try await pool.read { db in
            let sql = "SELECT host, tenant_id, app_ids, android_apps, created_at_ms FROM tenant_domains"
            let rows = if let tenantID {
                try Row.fetchAll(db, sql: sql + " WHERE tenant_id = ? ORDER BY host", arguments: [tenantID])
            } else {
                try Row.fetchAll(db, sql: sql + " ORDER BY host")
            }
            return try rows.map(Self.domain)
        }
    }

    private static func fetch(_ db: Database, host: String) throws -> TenantDomain? {
        try Row.fetchOne(
            db, sql: "SELECT host, tenant_id, app_ids, android_apps, created_at_ms FROM tenant_domains WHERE host = ?",
            arguments: [host]
        ).map(domain)
    }

    private static func domain(_ row: Row) throws -> TenantDomain {
        let ids = try JSONDecoder().decode([String].self, from: Data((row[2] as String).utf8))
        let apps = try JSONDecoder().decode([AndroidApp].self, from: Data((row[3] as String).utf8))
        return TenantDomain(
            host: row[0], tenantID: row[1], appIDs: ids, androidApps: apps, createdAt: StoreClock.date(row[4]))
    }

    private static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}
