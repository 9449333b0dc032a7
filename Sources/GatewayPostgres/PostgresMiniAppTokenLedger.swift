import Foundation
import GatewayCore
import PostgresNIO

/// ``MiniAppTokenLedger`` on PostgreSQL (`miniapp_tokens`). Each write also drops the
/// owner's expired rows, so the table holds live tokens only.
public struct PostgresMiniAppTokenLedger: MiniAppTokenLedger {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func record(_ owner: UserMiniAppKey, jti: String, expiresAt: Date) async throws {
        try await database.pool.execute("""
            WITH expired AS (DELETE FROM miniapp_tokens WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID)
                AND expires_at_ms <= \(StoreClock.milliseconds(StoreClock.now())))
            INSERT INTO miniapp_tokens (tenant_id, user_id, miniapp_id, jti, expires_at_ms)
            VALUES (\(owner.tenantID), \(owner.userID), \(owner.miniAppID), \(jti), \(StoreClock.milliseconds(expiresAt)))
            """)
    }

    public func takeLive(_ owner: UserMiniAppKey, now: Date) async throws -> [IssuedTokenID] {
        // One DELETE … RETURNING: two processes taking at once each get disjoint rows.
        try await database.pool.all("""
            DELETE FROM miniapp_tokens WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID)
            RETURNING jti, expires_at_ms
            """, as: (String, Int64).self)
            .filter { $0.1 > StoreClock.milliseconds(now) }
            .map { IssuedTokenID(jti: $0.0, expiresAt: StoreClock.date($0.1)) }
    }
}
