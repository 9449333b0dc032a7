import Foundation
import GatewayCore
import GRDB

/// ``ConsentStore`` in the tenant store's SQLite file (`user_consents`, `user_miniapps`).
public final class SQLiteConsentStore: ConsentStore {
    private let pool: DatabasePool

    /// A store sharing `database`'s file and connection pool.
    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
    }

    public func consents(of owner: UserMiniAppKey) async throws -> MiniAppConsents {
        try await pool.read { db in try Self.read(db, owner) }
    }

    @discardableResult
    public func setConsents(
        _ changes: [String: ConsentStatus], for owner: UserMiniAppKey
    ) async throws -> MiniAppConsents {
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await pool.write { db in
            let current = try Self.read(db, owner)
            let changed = changes.filter { current.status(of: $0.key) != $0.value }
            for (permission, status) in changed {
                try db.execute(
                    sql: """
                        INSERT INTO user_consents (tenant_id, user_id, miniapp_id, permission, status, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (tenant_id, user_id, miniapp_id, permission) DO UPDATE SET status = excluded.status, updated_at_ms = excluded.updated_at_ms
                        """, arguments: UserMiniAppTable.arguments(owner) + [permission, status.rawValue, now])
            }
            if changed.isEmpty {
                try UserMiniAppTable.touch(db, owner, atMs: now)
            } else {
                _ = try UserMiniAppTable.bumpConsentVersion(db, owner, atMs: now)
            }
            return try Self.read(db, owner)
        }
    }

    public func userMiniApps(tenantID: String, userID: String, limit: Int?) async throws -> [MiniAppConsents] {
        try await pool.read { db in
            let ids = try String.fetchAll(db, sql: """
                SELECT miniapp_id FROM user_miniapps WHERE tenant_id = ? AND user_id = ?
                ORDER BY last_used_at_ms DESC, miniapp_id LIMIT ?
                """, arguments: [tenantID, userID, limit.map { max(0, $0) } ?? -1])
            return try ids.map { try Self.read(db, UserMiniAppKey(tenantID: tenantID, userID: userID, miniAppID: $0)) }
        }
    }

    public func touch(_ owner: UserMiniAppKey) async throws {
        let now = StoreClock.milliseconds(StoreClock.now())
        try await pool.write { db in try UserMiniAppTable.touch(db, owner, atMs: now) }
    }

    private static func read(_ db: Database, _ owner: UserMiniAppKey) throws -> MiniAppConsents {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT permission, status, updated_at_ms FROM user_consents WHERE \(UserMiniAppTable.whereOwner) ORDER BY permission
                """, arguments: UserMiniAppTable.arguments(owner))
        let records = rows.compactMap { row -> ConsentRecord? in
            guard let status = ConsentStatus(rawValue: row[1]) else { return nil }
            return ConsentRecord(permission: row[0], status: status, updatedAt: StoreClock.date(row[2]))
        }
        let state = try UserMiniAppTable.fetch(db, owner)
        return MiniAppConsents(
            miniAppID: owner.miniAppID, records: records, version: state?.consentVersion ?? 0,
            lastUsedAt: state.map { StoreClock.date($0.lastUsedAtMs) }
        )
    }
}
