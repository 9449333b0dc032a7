import Foundation
import GatewayCore
import PostgresNIO

/// ``UserEraser`` and ``UserSuspender`` on PostgreSQL: one transaction each, the account row
/// locked first.
extension PostgresAuthStore {
    public func eraseUser(tenantID: String, subject: String, now: Date) async throws -> UserErasure {
        let now = StoreClock.milliseconds(now)
        return try await database.transaction { connection in
            guard
                try await connection.first(
                    "SELECT 1 FROM auth_users WHERE tenant_id = \(tenantID) AND subject = \(subject) FOR UPDATE",
                    as: Int32.self) != nil
            else {
                throw AuthStoreError.notFound("user with subject \(subject)")
            }
            let revoked = try await Self.revokeLiveTokens(connection, tenantID: tenantID, subject: subject, nowMS: now)
            var deleted: [String: Int] = [:]
            for (table, column) in UserErasure.tables {
                deleted[table, default: 0] += try await connection.execute(
                    "DELETE FROM \(unescaped: table) WHERE tenant_id = \(tenantID) AND \(unescaped: column) = \(subject) RETURNING 1"
                )
            }
            return UserErasure(deleted: deleted, revokedTokens: revoked)
        }
    }

    public func setUserDisabled(
        _ disabled: Bool, tenantID: String, subject: String, now: Date
    ) async throws -> (user: LocalUser, revokedTokens: Int) {
        let nowMS = StoreClock.milliseconds(now)
        return try await database.transaction { connection in
            guard
                let row = try await connection.first(
                    """
                    UPDATE auth_users SET disabled = \(disabled) WHERE tenant_id = \(tenantID) AND subject = \(subject)
                    RETURNING \(unescaped: Self.userColumns)
                    """, as: UserRow.self)
            else {
                throw AuthStoreError.notFound("user with subject \(subject)")
            }
            let user = try self.user(row)
            guard disabled else { return (user, 0) }
            let revoked = try await Self.revokeLiveTokens(connection, tenantID: tenantID, subject: subject, nowMS: nowMS)
            // Under the families' row locks, as a refresh takes them: a rotation either committed
            // before (its access token is among those revoked above) or finds the family revoked.
            try await connection.execute("""
                WITH families AS (
                    UPDATE auth_refresh_families SET revoked = true
                    WHERE tenant_id = \(tenantID) AND subject = \(subject) AND NOT revoked RETURNING family_id)
                UPDATE auth_refresh_tokens SET state = 'revoked' WHERE family_id IN (SELECT family_id FROM families)
                """)
            return (user, revoked)
        }
    }

    /// Records every unexpired access token (of the user's refresh families) and mini-app token
    /// of the user as revoked, on the caller's transaction; returns how many.
    static func revokeLiveTokens(
        _ connection: PostgresConnection, tenantID: String, subject: String, nowMS: Int64
    ) async throws -> Int {
        let live = try await connection.all("""
            SELECT a.jti, a.expires_at_ms FROM auth_family_access_tokens a JOIN auth_refresh_families f ON f.family_id = a.family_id
                WHERE f.tenant_id = \(tenantID) AND f.subject = \(subject) AND a.expires_at_ms > \(nowMS)
            UNION ALL SELECT jti, expires_at_ms FROM miniapp_tokens WHERE tenant_id = \(tenantID) AND user_id = \(subject) AND expires_at_ms > \(nowMS)
            """, as: (String, Int64).self)
        for (jti, expiresAt) in live {
            try await PostgresRevocationStore.record(
                RevokedTokens.key(tenantID, jti), until: RevokedTokens.revokedUntil(expiresAtMS: expiresAt),
                on: connection)
        }
        return live.count
    }
}
