import Foundation
import GatewayCore
import PostgresNIO

/// ``AdminIdempotencyStore`` in PostgreSQL (`admin_idempotency`). A claim is one
/// `INSERT … ON CONFLICT DO UPDATE … WHERE expired`: of two replicas claiming one key, one
/// inserts and the other finds its row.
public final class PostgresAdminIdempotencyStore: AdminIdempotencyStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func claim(
        operatorID: String, key: String, fingerprint: String, now: Date, leaseUntil: Date
    ) async throws -> IdempotencyClaim {
        let (nowMS, leaseMS) = (StoreClock.milliseconds(now), StoreClock.milliseconds(leaseUntil))
        return try await database.transaction { connection in
            try await connection.execute(
                "DELETE FROM admin_idempotency WHERE operator_id = \(operatorID) AND expires_at_ms <= \(nowMS) AND key <> \(key)")
            let claimed = try await connection.execute(
                """
                INSERT INTO admin_idempotency (operator_id, key, fingerprint, status, etag, body, expires_at_ms)
                VALUES (\(operatorID), \(key), \(fingerprint), 0, NULL, NULL, \(leaseMS))
                ON CONFLICT (operator_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = 0,
                    etag = NULL, body = NULL, expires_at_ms = excluded.expires_at_ms
                WHERE admin_idempotency.expires_at_ms <= \(nowMS)
                RETURNING 1
                """)
            if claimed > 0 { return .claimed }
            guard
                let row = try await connection.first(
                    """
                    SELECT fingerprint, status, etag, body FROM admin_idempotency
                    WHERE operator_id = \(operatorID) AND key = \(key)
                    """, as: (String, Int32, String?, String?).self)
            else { return .inProgress }
            return AdminIdempotencyRow.claim(
                fingerprint: row.0, status: Int(row.1), etag: row.2, body: row.3, requested: fingerprint)
        }
    }

    public func complete(operatorID: String, key: String, response: IdempotentResponse, keepUntil: Date) async throws {
        try await database.pool.execute(
            """
            UPDATE admin_idempotency SET status = \(Int32(response.status)), etag = \(response.etag), body = \(response.body),
                expires_at_ms = \(StoreClock.milliseconds(keepUntil))
            WHERE operator_id = \(operatorID) AND key = \(key)
            """)
    }

    public func abandon(operatorID: String, key: String) async throws {
        try await database.pool.execute(
            "DELETE FROM admin_idempotency WHERE operator_id = \(operatorID) AND key = \(key) AND status = 0")
    }
}
