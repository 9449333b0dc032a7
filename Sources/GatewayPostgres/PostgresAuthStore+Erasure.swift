import Foundation
import GatewayCore
import PostgresNIO

/// ``UserEraser`` on PostgreSQL: one transaction, the account row locked first.
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
            let live = try await connection.all("""
                SELECT a.jti, a.expires_at_ms FROM auth_family_access_tokens a JOIN auth_refresh_families f ON f.family_id = a.family_id
                    WHERE f.tenant_id = \(tenantID) AND f.subject = \(subject) AND a.expires_at_ms > \(now)
                UNION ALL SELECT jti, expires_at_ms FROM miniapp_tokens WHERE tenant_id = \(tenantID) AND user_id = \(subject) AND expires_at_ms > \(now)
                """, as: (String, Int64).self)
            for (jti, expiresAt) in live {
                try await PostgresRevocationStore.record(
                    RevokedTokens.key(tenantID, jti), until: RevokedTokens.revokedUntil(expiresAtMS: expiresAt),
                    on: connection)
            }
            var deleted: [String: Int] = [:]
            for (table, column) in UserErasure.tables {
                deleted[table, default: 0] += try await connection.execute(
                    "DELETE FROM \(unescaped: table) WHERE tenant_id = \(tenantID) AND \(unescaped: column) = \(subject) RETURNING 1"
                )
            }
            return UserErasure(deleted: deleted, revokedTokens: live.count)
        }
    }
}
