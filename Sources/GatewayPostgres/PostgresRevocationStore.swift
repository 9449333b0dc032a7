import GatewayCore
import PostgresNIO

/// ``RevocationStore`` on PostgreSQL (`auth_revoked_tokens`).
///
/// Identity values are handed out when a row is inserted but become visible when it
/// commits, so on PostgreSQL a higher id can appear before a lower one. Replicas therefore
/// follow `recorded_at_ms` (stamped by the server's clock at insert and at every extension)
/// and re-read an ``overlap`` window each poll; reading a revocation twice is harmless.
/// The cursor is a server time in milliseconds.
public struct PostgresRevocationStore: RevocationStore {
    let database: PostgresDatabase
    /// How far back each poll looks again (commits later than this after their insert are missed).
    public static let overlapMilliseconds: Int64 = 10_000

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func record(_ key: String, until: Int64) async throws {
        try await Self.record(key, until: until, on: database.pool)
    }

    /// Records `key` as revoked until `until` through `runner` (the pool, or the connection of
    /// a transaction: an erasure revokes a user's tokens where it deletes the user).
    static func record(_ key: String, until: Int64, on runner: some SQLRunner) async throws {
        try await runner.execute("""
            INSERT INTO auth_revoked_tokens (token_key, revoked_until_ms) VALUES (\(key), \(until))
            ON CONFLICT (token_key) DO UPDATE SET revoked_until_ms = greatest(auth_revoked_tokens.revoked_until_ms, excluded.revoked_until_ms),
                recorded_at_ms = excluded.recorded_at_ms
            """)
    }

    public func isRecorded(_ key: String, now: Int64) async throws -> Bool {
        try await database.pool.first(
            "SELECT 1 FROM auth_revoked_tokens WHERE token_key = \(key) AND revoked_until_ms > \(now)", as: Int32.self)
            != nil
    }

    public func revocations(after cursor: Int64, now: Int64) async throws -> (entries: [String: Int64], cursor: Int64) {
        let since = cursor == 0 ? Int64.min : cursor - Self.overlapMilliseconds
        return try await database.transaction { connection in
            // The cursor is read first: rows recorded after it are read next time.
            let serverNow =
                try await connection.first(
                    "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint", as: Int64.self) ?? cursor
            var entries: [String: Int64] = [:]
            for (key, until) in try await connection.all("""
                SELECT token_key, revoked_until_ms FROM auth_revoked_tokens WHERE recorded_at_ms > \(since) AND revoked_until_ms > \(now)
                """, as: (String, Int64).self) {
                entries[key] = until
            }
            return (entries, max(cursor, serverNow))
        }
    }

    @discardableResult
    public func purge(now: Int64) async throws -> Int {
        try await database.pool.execute("DELETE FROM auth_revoked_tokens WHERE revoked_until_ms <= \(now) RETURNING 1")
    }
}
