import Foundation
import GatewayCore
import GRDB

/// ``TenantStore`` on a SQLite file (GRDB `DatabasePool`, WAL), safe to share between
/// processes: gatewayctl writes while gateways read.
///
/// Every write runs in one IMMEDIATE transaction that also bumps
/// `store_state.change_counter` (see ``changeToken()``); secrets are sealed with the
/// ``SecretSealer`` before they reach disk; tenants are validated with
/// ``TenantValidator`` first and rejected with ``TenantStoreError/invalid(_:)``.
public final class SQLiteTenantStore: TenantStore {
    /// The database file.
    public let path: String
    let pool: DatabasePool
    let sealer: SecretSealer

    /// Opens (creating the file and its folder if needed) the store at `path`.
    /// With `migrate` true (the default) pending migrations are applied.
    public init(path: String, sealer: SecretSealer, migrate: Bool = true) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.foreignKeysEnabled = true
        config.label = "tenants"
        self.path = path
        self.pool = try DatabasePool(path: path, configuration: config)
        self.sealer = sealer
        if migrate { try self.migrate() }
    }

    /// Same as `init(path:sealer:)`.
    public static func open(path: String, sealer: SecretSealer) throws -> SQLiteTenantStore {
        try SQLiteTenantStore(path: path, sealer: sealer)
    }

    /// Names of every migration this build knows, in order (`v1-tenants`, ...).
    public static var knownMigrations: [String] { TenantMigrations.names }

    /// Applies pending migrations; a no-op when the schema is current. Holds an exclusive
    /// lock on `<path>.migrate-lock`, so processes migrating together apply each migration once.
    public func migrate() throws {
        try FileLock.holding(path + ".migrate-lock") { try TenantMigrations.migrator.migrate(pool) }
    }

    /// Names of the migrations applied to this database file, in order.
    public func appliedMigrations() throws -> [String] {
        try pool.read { db in try TenantMigrations.migrator.appliedIdentifiers(db) }
            .sorted {
                (Self.knownMigrations.firstIndex(of: $0) ?? .max) < (Self.knownMigrations.firstIndex(of: $1) ?? .max)
            }
    }

    public func allTenants() async throws -> [Tenant] {
        let records = try await pool.read { db in try TenantRecord.order(Column("id")).fetchAll(db) }
        return try records.map { try $0.tenant(sealer: sealer) }
    }

    public func tenants(after: String?, limit: Int) async throws -> [Tenant] {
        let records = try await pool.read { db in
            var request = TenantRecord.order(Column("id")).limit(max(0, limit))
            if let after { request = request.filter(Column("id") > after) }
            return try request.fetchAll(db)
        }
        return try records.map { try $0.tenant(sealer: sealer) }
    }

    public func tenant(id: String) async throws -> Tenant? {
        let record = try await pool.read { db in try TenantRecord.fetchOne(db, key: id) }
        return try record?.tenant(sealer: sealer)
    }

    public func changeToken() async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT change_counter FROM store_state WHERE id = 1") ?? 0
        }
    }

    public func ping() async throws {
        try await pool.read { db in try db.execute(sql: "SELECT 1") }
    }

    public func auditLog(tenantID: String?, limit: Int) async throws -> [TenantAuditEntry] {
        try await TenantTrail.log(trail: SQLiteAuditTrail(database: self), tenantID: tenantID, limit: limit) {
            try await self.legacyAuditLog(tenantID: tenantID, limit: $0)
        }
    }

    /// `tenant_audit`: the log the trail replaced (`v31-audit-views`), read, no longer written.
    private func legacyAuditLog(tenantID: String?, limit: Int) async throws -> [TenantAuditEntry] {
        let records = try await pool.read { db in
            var request = TenantAuditRecord.order(Column("id").desc)
            if let tenantID { request = request.filter(Column("tenant_id") == tenantID) }
            return try request.limit(max(0, limit)).fetchAll(db)
        }
        return records.map(\.entry)
    }

    /// Bumps the change counter and records which tenants the change touched; call inside
    /// every write transaction gateways must notice. Keeps the last ``TenantChanges/retained``
    /// changes.
    static func bumpChangeCounter(_ db: Database, tenants: some Sequence<String>) throws {
        try db.execute(sql: "UPDATE store_state SET change_counter = change_counter + 1 WHERE id = 1")
        let token = try Int64.fetchOne(db, sql: "SELECT change_counter FROM store_state WHERE id = 1") ?? 0
        for id in Set(tenants) {
            try db.execute(
                sql: "INSERT INTO tenant_changes (change_seq, tenant_id) VALUES (?, ?)", arguments: [token, id])
        }
        try db.execute(
            sql: "DELETE FROM tenant_changes WHERE change_seq <= ?", arguments: [token - TenantChanges.retained])
    }

    public func changedTenants(after token: Int64) async throws -> TenantChanges? {
        let answer: (current: Int64, ids: [String], oldest: Int64?) = try await pool.read { db in
            let current = try Int64.fetchOne(db, sql: "SELECT change_counter FROM store_state WHERE id = 1") ?? 0
            let ids = try String.fetchAll(
                db, sql: "SELECT DISTINCT tenant_id FROM tenant_changes WHERE change_seq > ?", arguments: [token])
            let oldest = try Int64.fetchOne(db, sql: "SELECT min(change_seq) FROM tenant_changes")
            return (current, ids, oldest)
        }
        return TenantChanges.answer(after: token, current: answer.current, ids: answer.ids, oldest: answer.oldest)
    }
}
