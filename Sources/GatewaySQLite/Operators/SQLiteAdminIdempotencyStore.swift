import Foundation
import GatewayCore
import GRDB

/// ``AdminIdempotencyStore`` in the SQLite file (`admin_idempotency`). One writer at a time:
/// reading a key and claiming it in one write transaction cannot race.
public final class SQLiteAdminIdempotencyStore: AdminIdempotencyStore {
    private let pool: DatabasePool

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
    }

    public func claim(
        operatorID: String, key: String, fingerprint: String, now: Date, leaseUntil: Date
    ) async throws -> IdempotencyClaim {
        let (nowMS, leaseMS) = (StoreClock.milliseconds(now), StoreClock.milliseconds(leaseUntil))
        return try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM admin_idempotency WHERE operator_id = ? AND expires_at_ms <= ?",
                arguments: [operatorID, nowMS])
            if let row = try Row.fetchOne(
                db, sql: "SELECT fingerprint, status, etag, body FROM admin_idempotency WHERE operator_id = ? AND key = ?",
                arguments: [operatorID, key])
            {
                return AdminIdempotencyRow.claim(
                    fingerprint: row["fingerprint"], status: row["status"], etag: row["etag"], body: row["body"],
                    requested: fingerprint)
            }
            try db.execute(
                sql: """
                    INSERT INTO admin_idempotency (operator_id, key, fingerprint, status, expires_at_ms)
                    VALUES (?, ?, ?, 0, ?)
                    """, arguments: [operatorID, key, fingerprint, leaseMS])
            return .claimed
        }
    }

    public func complete(operatorID: String, key: String, response: IdempotentResponse, keepUntil: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE admin_idempotency SET status = ?, etag = ?, body = ?, expires_at_ms = ?
                    WHERE operator_id = ? AND key = ?
                    """,
                arguments: [
                    response.status, response.etag, response.body, StoreClock.milliseconds(keepUntil), operatorID, key,
                ])
        }
    }

    public func abandon(operatorID: String, key: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM admin_idempotency WHERE operator_id = ? AND key = ? AND status = 0",
                arguments: [operatorID, key])
        }
    }
}
