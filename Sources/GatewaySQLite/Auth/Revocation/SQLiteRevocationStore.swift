import GatewayCore
import GRDB

/// ``RevocationStore`` in the tenant database (table `auth_revoked_tokens`).
public struct SQLiteRevocationStore: RevocationStore {
    private let pool: DatabasePool

    public init(database: SQLiteTenantStore) {
        pool = database.pool
    }

    public func record(_ key: String, until: Int64) async throws {
        try await pool.write { db in try Self.record(key, until: until, in: db) }
    }

    /// Records `key` as revoked until `until` inside the caller's transaction (an erasure
    /// revokes a user's tokens in the same transaction that deletes the user).
    static func record(_ key: String, until: Int64, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO auth_revoked_tokens (token_key, revoked_until_ms) VALUES (?, ?)
            ON CONFLICT(token_key) DO UPDATE SET revoked_until_ms = max(revoked_until_ms, excluded.revoked_until_ms)
            """, arguments: [key, until])
    }

    public func isRecorded(_ key: String, now: Int64) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM auth_revoked_tokens WHERE token_key = ? AND revoked_until_ms > ?",
                arguments: [key, now]) ?? false
        }
    }

    public func revocations(after cursor: Int64, now: Int64) async throws -> (entries: [String: Int64], cursor: Int64) {
        try await pool.read { db in
            var entries: [String: Int64] = [:]
            var last = cursor
            let rows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT id, token_key, revoked_until_ms FROM auth_revoked_tokens WHERE id > ? AND revoked_until_ms > ? ORDER BY id",
                arguments: [cursor, now])
            while let row = try rows.next() {
                entries[row["token_key"]] = row["revoked_until_ms"]
                last = row["id"]
            }
            // Nothing newer: keep the cursor at the table's end, so rows that expired in
            // between are not read again.
            if entries.isEmpty, let maxID = try Int64.fetchOne(db, sql: "SELECT max(id) FROM auth_revoked_tokens") {
                last = max(last, maxID)
            }
            return (entries, last)
        }
    }

    @discardableResult
    public func purge(now: Int64) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM auth_revoked_tokens WHERE revoked_until_ms <= ?", arguments: [now])
            return db.changesCount
        }
    }
}
