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
    public func add(host: String, tenantID: String, appIDs: [String]) async throws -> TenantDomain {
        let name = try TenantDomainError.host(host)
        for id in appIDs { try TenantDomainError.check(appID: id) }
        let now = StoreClock.now()
        return try await pool.write { db in
            var domain =
                try Self.fetch(db, host: name)
                ?? TenantDomain(host: name, tenantID: tenantID, appIDs: [], createdAt: now)
            guard domain.tenantID == tenantID else {
                throw TenantDomainError.hostTaken(host: name, tenantID: domain.tenantID)
            }
            for id in appIDs where !domain.appIDs.contains(id) { domain.appIDs.append(id) }
            try db.execute(
                sql: """
                    INSERT INTO tenant_domains (host, tenant_id, app_ids, created_at_ms) VALUES (?, ?, ?, ?)
                    ON CONFLICT (host) DO UPDATE SET app_ids = excluded.app_ids
                    """,
                arguments: [name, tenantID, try Self.encode(domain.appIDs), StoreClock.milliseconds(domain.createdAt)])
            try SQLiteTenantStore.bumpChangeCounter(db, tenants: [tenantID])
            return domain
        }
    }

    public func remove(host: String, tenantID: String) async throws {
        let name = try TenantDomainError.host(host)
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM tenant_domains WHERE host = ? AND tenant_id = ?", arguments: [name, tenantID])
            guard db.changesCount > 0 else { throw TenantDomainError.notFound(host: name) }
            try SQLiteTenantStore.bumpChangeCounter(db, tenants: [tenantID])
        }
    }

    public func domain(host: String) async throws -> TenantDomain? {
        guard let name = try? TenantDomainError.host(host) else { return nil }
        return try await pool.read { db in try Self.fetch(db, host: name) }
    }

    public func domains(tenantID: String?) async throws -> [TenantDomain] {
        try await pool.read { db in
            let sql = "SELECT host, tenant_id, app_ids, created_at_ms FROM tenant_domains"
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
            db, sql: "SELECT host, tenant_id, app_ids, created_at_ms FROM tenant_domains WHERE host = ?",
            arguments: [host]
        ).map(domain)
    }

    private static func domain(_ row: Row) throws -> TenantDomain {
        let ids = try JSONDecoder().decode([String].self, from: Data((row[2] as String).utf8))
        return TenantDomain(host: row[0], tenantID: row[1], appIDs: ids, createdAt: StoreClock.date(row[3]))
    }

    private static func encode(_ ids: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
    }
}
