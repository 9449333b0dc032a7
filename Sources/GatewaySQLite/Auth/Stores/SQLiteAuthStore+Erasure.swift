import Foundation
import GatewayCore
import GRDB

/// ``UserEraser`` and ``UserSuspender`` in the SQLite file: one write transaction each.
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
            let revoked = try Self.revokeLiveTokens(db, tenantID: tenantID, subject: subject, nowMS: now)
            var deleted: [String: Int] = [:]
            for (table, column) in UserErasure.tables {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE tenant_id = ? AND \(column) = ?", arguments: [tenantID, subject])
                deleted[table, default: 0] += db.changesCount
            }
            return UserErasure(deleted: deleted, revokedTokens: revoked)
        }
    }

    public func setUserDisabled(
        _ disabled: Bool, tenantID: String, subject: String, now: Date
    ) async throws -> (user: LocalUser, revokedTokens: Int) {
        let nowMS = StoreClock.milliseconds(now)
        let sealer = self.sealer
        return try await pool.write { db in
            try db.execute(
                sql: "UPDATE auth_users SET disabled = ? WHERE tenant_id = ? AND subject = ?",
                arguments: [disabled, tenantID, subject])
            guard db.changesCount == 1,
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM auth_users WHERE tenant_id = ? AND subject = ?", arguments: [tenantID, subject])
            else {
                throw AuthStoreError.notFound("user with subject \(subject)")
            }
            let user = try Self.user(row, sealer: sealer)
            guard disabled else { return (user, 0) }
            let revoked = try Self.revokeLiveTokens(db, tenantID: tenantID, subject: subject, nowMS: nowMS)
            try db.execute(
                sql: """
                    UPDATE auth_refresh_tokens SET state = 'revoked' WHERE family_id IN
                        (SELECT family_id FROM auth_refresh_families WHERE tenant_id = ? AND subject = ? AND revoked = 0)
                    """, arguments: [tenantID, subject])
            try db.execute(
                sql: "UPDATE auth_refresh_families SET revoked = 1 WHERE tenant_id = ? AND subject = ? AND revoked = 0",
                arguments: [tenantID, subject])
            return (user, revoked)
        }
    }

    /// Records every unexpired access token (of the user's refresh families) and mini-app token
    /// of the user as revoked, inside the caller's transaction; returns how many.
    static func revokeLiveTokens(_ db: Database, tenantID: String, subject: String, nowMS: Int64) throws -> Int {
        let live = try Row.fetchAll(
            db,
            sql: """
                SELECT a.jti, a.expires_at_ms FROM auth_family_access_tokens a JOIN auth_refresh_families f ON f.family_id = a.family_id
                    WHERE f.tenant_id = ?1 AND f.subject = ?2 AND a.expires_at_ms > ?3
                UNION ALL SELECT jti, expires_at_ms FROM miniapp_tokens WHERE tenant_id = ?1 AND user_id = ?2 AND expires_at_ms > ?3
                """, arguments: [tenantID, subject, nowMS])
        for token in live {
            try SQLiteRevocationStore.record(
                RevokedTokens.key(tenantID, token["jti"]),
                until: RevokedTokens.revokedUntil(expiresAtMS: token["expires_at_ms"]), in: db)
        }
        return live.count
    }
}
