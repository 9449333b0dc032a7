import Foundation
import GatewayCore
import PostgresNIO

/// ``UserEraser`` and ``UserSuspender`` on PostgreSQL: one transaction each, the account row
/// locked first.
extension PostgresAuthStore {
    public func eraseUser(
        tenantID: String, subject: String, now: Date, check: (@Sendable (LocalUser) throws -> Void)?,
        trail: (@Sendable (LocalUser) -> AuditDraft)?
    ) async throws -> UserErasure {
        let now = StoreClock.milliseconds(now)
        return try await database.transaction { connection in
            let user = try await self.lockedUser(connection, tenantID: tenantID, subject: subject)
            try check?(user)
            let revoked = try await Self.revokeLiveTokens(connection, tenantID: tenantID, subject: subject, nowMS: now).count
            var deleted: [String: Int] = [:]
            for (table, column) in UserErasure.tables {
                deleted[table, default: 0] += try await connection.execute(
                    "DELETE FROM \(unescaped: table) WHERE tenant_id = \(tenantID) AND \(unescaped: column) = \(subject) RETURNING 1"
                )
            }
            if let trail { _ = try await PostgresAuditTrail.append(trail(user), on: connection) }
            return UserErasure(deleted: deleted, revokedTokens: revoked)
        }
    }

    public func setUserDisabled(
        _ disabled: Bool, tenantID: String, subject: String, now: Date, check: (@Sendable (LocalUser) throws -> Void)?,
        trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?
    ) async throws -> (user: LocalUser, revokedTokens: Int) {
        let nowMS = StoreClock.milliseconds(now)
        return try await database.transaction { connection in
            let old = try await self.lockedUser(connection, tenantID: tenantID, subject: subject)
            try check?(old)
            var user = old
            // Already in the asked state: the account is not written (disabling again still
            // revokes whatever the user holds, as the first time).
            if old.disabled != disabled {
                (user.disabled, user.revision) = (disabled, old.revision + 1)
                try await connection.execute("""
                    UPDATE auth_users SET disabled = \(disabled), revision = \(user.revision)
                    WHERE tenant_id = \(tenantID) AND subject = \(subject)
                    """)
                if let trail { _ = try await PostgresAuditTrail.append(trail(old, user), on: connection) }
            }
            guard disabled else { return (user, 0) }
            return (user, try await Self.endSessions(connection, tenantID: tenantID, subject: subject, nowMS: nowMS).count)
        }
    }

    public func writeUserEndingSessions(
        tenantID: String, username: String, now: Date, trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?,
        _ change: @escaping @Sendable (LocalUser) throws -> LocalUser
    ) async throws -> (user: LocalUser, revoked: [RecordedRevocation]) {
        let nowMS = StoreClock.milliseconds(now)
        return try await database.transaction { connection in
            let user = try await self.writeUser(connection, tenantID: tenantID, username: username, trail: trail, change)
            return (user, try await Self.endSessions(connection, tenantID: tenantID, subject: user.subject, nowMS: nowMS))
        }
    }

    /// Ends every session of the user on the caller's transaction: live tokens recorded as
    /// revoked, then every refresh family (and its refresh tokens) revoked.
    private static func endSessions(
        _ connection: PostgresConnection, tenantID: String, subject: String, nowMS: Int64
    ) async throws -> [RecordedRevocation] {
        let revoked = try await revokeLiveTokens(connection, tenantID: tenantID, subject: subject, nowMS: nowMS)
        // Under the families' row locks, as a refresh takes them: a rotation either committed
        // before (its access token is among those revoked above) or finds the family revoked.
        try await connection.execute("""
            WITH families AS (
                UPDATE auth_refresh_families SET revoked = true
                WHERE tenant_id = \(tenantID) AND subject = \(subject) AND NOT revoked RETURNING family_id)
            UPDATE auth_refresh_tokens SET state = 'revoked' WHERE family_id IN (SELECT family_id FROM families)
            """)
        return revoked
    }

    /// The user `subject`, its row locked until the transaction ends.
    private func lockedUser(_ connection: PostgresConnection, tenantID: String, subject: String) async throws -> LocalUser {
        guard
            let row = try await connection.first(
                """
                SELECT \(unescaped: Self.userColumns) FROM auth_users
                WHERE tenant_id = \(tenantID) AND subject = \(subject) FOR UPDATE
                """, as: UserRow.self)
        else { throw AuthStoreError.notFound("user with subject \(subject)") }
        return try user(row)
    }

    /// Records every unexpired access token (of the user's refresh families) and mini-app token
    /// of the user as revoked, on the caller's transaction; returns them.
    static func revokeLiveTokens(
        _ connection: PostgresConnection, tenantID: String, subject: String, nowMS: Int64
    ) async throws -> [RecordedRevocation] {
        let live = try await connection.all("""
            SELECT a.jti, a.expires_at_ms FROM auth_family_access_tokens a JOIN auth_refresh_families f ON f.family_id = a.family_id
                WHERE f.tenant_id = \(tenantID) AND f.subject = \(subject) AND a.expires_at_ms > \(nowMS)
            UNION ALL SELECT jti, expires_at_ms FROM miniapp_tokens WHERE tenant_id = \(tenantID) AND user_id = \(subject) AND expires_at_ms > \(nowMS)
            """, as: (String, Int64).self)
        var revoked: [RecordedRevocation] = []
        for (jti, expiresAt) in live {
            let revocation = RecordedRevocation(
                key: RevokedTokens.key(tenantID, jti), untilMS: RevokedTokens.revokedUntil(expiresAtMS: expiresAt))
            try await PostgresRevocationStore.record(revocation.key, until: revocation.untilMS, on: connection)
            revoked.append(revocation)
        }
        return revoked
    }
}
