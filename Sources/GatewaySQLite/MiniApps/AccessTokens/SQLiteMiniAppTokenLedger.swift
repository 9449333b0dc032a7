import Foundation
import GatewayCore
import GRDB

/// ``MiniAppTokenLedger`` in the tenant store's SQLite file (`miniapp_tokens`). Each
/// write also drops the owner's expired rows, so the table holds live tokens only.
public struct SQLiteMiniAppTokenLedger: MiniAppTokenLedger {
    private let pool: DatabasePool

    public init(database: SQLiteTenantStore) {
        pool = database.pool
    }

    public func record(_ owner: UserMiniAppKey, jti: String, expiresAt: Date) async throws {
        let expires = StoreClock.milliseconds(expiresAt)
        let now = StoreClock.milliseconds(StoreClock.now())
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM miniapp_tokens WHERE \(UserMiniAppTable.whereOwner) AND expires_at_ms <= ?",
                arguments: UserMiniAppTable.arguments(owner) + [now])
            try db.execute(
                sql:
                    "INSERT INTO miniapp_tokens (tenant_id, user_id, miniapp_id, jti, expires_at_ms) VALUES (?, ?, ?, ?, ?)",
                arguments: UserMiniAppTable.arguments(owner) + [jti, expires])
        }
    }

    public func takeLive(_ owner: UserMiniAppKey, now: Date) async throws -> [IssuedTokenID] {
        let nowMS = StoreClock.milliseconds(now)
        return try await pool.write { db in
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT jti, expires_at_ms FROM miniapp_tokens WHERE \(UserMiniAppTable.whereOwner) AND expires_at_ms > ?",
                arguments: UserMiniAppTable.arguments(owner) + [nowMS])
            try db.execute(
                sql: "DELETE FROM miniapp_tokens WHERE \(UserMiniAppTable.whereOwner)",
                arguments: UserMiniAppTable.arguments(owner))
            return rows.map { IssuedTokenID(jti: $0[0], expiresAt: StoreClock.date($0[1])) }
        }
    }
}
