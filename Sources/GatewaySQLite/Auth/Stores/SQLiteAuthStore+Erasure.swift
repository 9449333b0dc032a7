import Foundation
import GatewayCore
import GRDB

/// ``UserEraser`` in the SQLite file: one write transaction.
extension SQLiteAuthStore {
    public func eraseUser(tenantID: String, subject: String, now: Date) async throws -> UserErasure {
        let now = StoreClock.milliseconds(now)
        return try await pool.write { db in
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM auth_users WHERE tenant_id = ? AND subject = ?",
                    arguments: [tenantID, subject]) == true
            else {
                throw AuthStoreError.notFound("user with subject \(subject)")
            }
            let live = try Row.fetchAll(
                db,
                sql: """
                    SELECT a.jti, a.expires_at_ms FROM auth_family_access_tokens a JOIN auth_refresh_families f ON f.family_id = a.family_id
                        WHERE f.tenant_id = ?1 AND f.subject = ?2 AND a.expires_at_ms > ?3
                    UNION ALL SELECT jti, expires_at_ms FROM miniapp_tokens WHERE tenant_id = ?1 AND user_id = ?2 AND expires_at_ms > ?3
                    """, arguments: [tenantID, subject, now])
            for token in live {
                try SQLiteRevocationStore.record(
                    RevokedTokens.key(tenantID, token["jti"]),
                    until: RevokedTokens.revokedUntil(expiresAtMS: token["expires_at_ms"]), in: db)
            }
            var deleted: [String: Int] = [:]
            for (table, column) in UserErasure.tables {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE tenant_id = ? AND \(column) = ?", arguments: [tenantID, subject])
                deleted[table, default: 0] += db.changesCount
            }
            return UserErasure(deleted: deleted, revokedTokens: live.count)
        }
    }
}
