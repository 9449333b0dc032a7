import Foundation
import GatewayCore
import GRDB

/// ``UserEraser`` and ``UserSuspender`` in the SQLite file: one write transaction each.
extension SQLiteAuthStore {
    public func eraseUser(
        tenantID: String, subject: String, now: Date, check: (@Sendable (LocalUser) throws -> Void)?,
        trail: (@Sendable (LocalUser) -> AuditDraft)?
    ) async throws -> UserErasure {
        let now = StoreClock.milliseconds(now)
        let sealer = self.sealer
        return try await pool.write { db in
            let user = try Self.lockedUser(db, tenantID: tenantID, subject: subject, sealer: sealer)
            try check?(user)
            let revoked = try Self.revokeLiveTokens(db, tenantID: tenantID, subject: subject, nowMS: now).count
            var deleted: [String: Int] = [:]
            for (table, column) in UserErasure.tables {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE tenant_id = ? AND \(column) = ?", arguments: [tenantID, subject])
                deleted[table, default: 0] += db.changesCount
            }
            if let trail { _ = try SQLiteAuditTrail.append(trail(user), in: db) }
            return UserErasure(deleted: deleted, revokedTokens: revoked)
        }
    }

    public func setUserDisabled(
        _ disabled: Bool, tenantID: String, subject: String, now: Date, check: (@Sendable (LocalUser) throws -> Void)?,
        trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?
    ) async throws -> (user: LocalUser, revokedTokens: Int) {
        let nowMS = StoreClock.milliseconds(now)
        let sealer = self.sealer
        return try await pool.write { db in
            let old = try Self.lockedUser(db, tenantID: tenantID, subject: subject, sealer: sealer)
            try check?(old)
            var user = old
            // Already in the asked state: the account is not written (disabling again still
            // revokes whatever the user holds, as the first time).
            if old.disabled != disabled {
                (user.disabled, user.revision) = (disabled, old.revision + 1)
                try db.execute(
                    sql: "UPDATE auth_users SET disabled = ?, revision = ? WHERE tenant_id = ? AND subject = ?",
                    arguments: [disabled, user.revision, tenantID, subject])
                if let trail { _ = try SQLiteAuditTrail.append(trail(old, user), in: db) }
            }
            guard disabled else { return (user, 0) }
            return (user, try Self.endSessions(db, tenantID: tenantID, subject: subject, nowMS: nowMS).count)
        }
    }

    public func writeUserEndingSessions(
        tenantID: String, username: String, now: Date, trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?,
        _ change: @escaping @Sendable (LocalUser) throws -> LocalUser
    ) async throws -> (user: LocalUser, revoked: [RecordedRevocation]) {
        let nowMS = StoreClock.milliseconds(now)
        let sealer = self.sealer
        return try await pool.write { db in
            let user = try Self.writeUser(db, tenantID: tenantID, username: username, sealer: sealer, trail: trail, change)
            return (user, try Self.endSessions(db, tenantID: tenantID, subject: user.subject, nowMS: nowMS))
        }
    }

    /// Ends every session of the user inside the caller's transaction: live tokens recorded as
    /// revoked, then every refresh family (and its refresh tokens) revoked.
    private static func endSessions(
        _ db: Database, tenantID: String, subject: String, nowMS: Int64
    ) throws -> [RecordedRevocation] {
        let revoked = try revokeLiveTokens(db, tenantID: tenantID, subject: subject, nowMS: nowMS)
        try db.execute(
            sql: """
                UPDATE auth_refresh_tokens SET state = 'revoked' WHERE family_id IN
                    (SELECT family_id FROM auth_refresh_families WHERE tenant_id = ? AND subject = ? AND revoked = 0)
                """, arguments: [tenantID, subject])
        try db.execute(
            sql: "UPDATE auth_refresh_families SET revoked = 1 WHERE tenant_id = ? AND subject = ? AND revoked = 0",
            arguments: [tenantID, subject])
        return revoked
    }

    /// The user `subject` inside the caller's write transaction (SQLite's one writer holds it).
    private static func lockedUser(_ db: Database, tenantID: String, subject: String, sealer: SecretSealer) throws -> LocalUser {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM auth_users WHERE tenant_id = ? AND subject = ?", arguments: [tenantID, subject])
        else { throw AuthStoreError.notFound("user with subject \(subject)") }
        return try user(row, sealer: sealer)
    }

    /// Records every unexpired access token (of the user's refresh families) and mini-app token
    /// of the user as revoked, inside the caller's transaction; returns them.
    static func revokeLiveTokens(
        _ db: Database, tenantID: String, subject: String, nowMS: Int64
    ) throws -> [RecordedRevocation] {
        let live = try Row.fetchAll(
            db,
            sql: """
                SELECT a.jti, a.expires_at_ms FROM auth_family_access_tokens a JOIN auth_refresh_families f ON f.family_id = a.family_id
                    WHERE f.tenant_id = ?1 AND f.subject = ?2 AND a.expires_at_ms > ?3
                UNION ALL SELECT jti, expires_at_ms FROM miniapp_tokens WHERE tenant_id = ?1 AND user_id = ?2 AND expires_at_ms > ?3
                """, arguments: [tenantID, subject, nowMS])
        return try live.map { token in
            let revocation = RecordedRevocation(
                key: RevokedTokens.key(tenantID, token["jti"]),
                untilMS: RevokedTokens.revokedUntil(expiresAtMS: token["expires_at_ms"]))
            try SQLiteRevocationStore.record(revocation.key, until: revocation.untilMS, in: db)
            return revocation
        }
    }
}
