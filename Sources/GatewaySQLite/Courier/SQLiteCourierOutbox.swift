import Foundation
import GatewayCore
import GRDB

/// ``CourierOutbox`` in the tenant store's SQLite file (`courier_messages`, beside push's
/// outbox); one process writes, so claims need no row locks.
public final class SQLiteCourierOutbox: CourierOutbox {
    private let pool: DatabasePool
    private let sealer: SecretSealer

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
        self.sealer = database.sealer
    }

    public func enqueue(_ message: CourierMessage) async throws {
        let sealed = try sealer.seal(try message.sealedPart(), context: message.sealingContext)
        let created = StoreClock.milliseconds(message.createdAt)
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO courier_messages (tenant_id, message_id, channel, purpose, recipient_masked, sealed, state,
                        attempts, next_attempt_at_ms, created_at_ms, expires_at_ms, updated_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)
                    """,
                arguments: [message.tenantID, message.id, message.channel.rawValue, message.purpose,
                            message.maskedRecipient, sealed, created, created,
                            StoreClock.milliseconds(message.expiresAt), created])
        }
    }

    public func claim(limit: Int, lease: Duration, now: Date) async throws -> [ClaimedCourierMessage] {
        let nowMS = StoreClock.milliseconds(now)
        let until = nowMS + lease.wholeMilliseconds
        let sealer = self.sealer
        return try await pool.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT tenant_id, message_id, channel, purpose, sealed, attempts, created_at_ms, expires_at_ms
                    FROM courier_messages
                    WHERE state = 'pending' AND next_attempt_at_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?)
                    ORDER BY next_attempt_at_ms LIMIT ?
                    """, arguments: [nowMS, nowMS, limit])
            let leased = rows.map { row in
                CourierClaimPlanner.Leased(
                    tenantID: row["tenant_id"], messageID: row["message_id"], channel: row["channel"],
                    purpose: row["purpose"], sealed: row["sealed"], attempts: row["attempts"],
                    createdAt: StoreClock.date(row["created_at_ms"]), expiresAt: StoreClock.date(row["expires_at_ms"]))
            }
            let (claimed, ended) = CourierClaimPlanner.plan(leased, now: now, sealer: sealer)
            for claim in claimed {
                try db.execute(
                    sql: "UPDATE courier_messages SET lease_until_ms = ? WHERE tenant_id = ? AND message_id = ?",
                    arguments: [until, claim.message.tenantID, claim.message.id])
            }
            for (row, state, reason) in ended {
                try db.execute(
                    sql: """
                        UPDATE courier_messages SET state = ?, last_error = ?, lease_until_ms = NULL, updated_at_ms = ?
                        WHERE tenant_id = ? AND message_id = ?
                        """, arguments: [state.rawValue, reason, nowMS, row.tenantID, row.messageID])
            }
            return claimed
        }
    }

    public func record(_ results: [CourierResult], now: Date) async throws {
        guard !results.isEmpty else { return }
        let nowMS = StoreClock.milliseconds(now)
        try await pool.write { db in
            for result in results {
                let (state, next, reason) = result.stored(now: now)
                try db.execute(
                    sql: """
                        UPDATE courier_messages SET state = ?, attempts = attempts + 1, next_attempt_at_ms = ?,
                            last_error = ?, lease_until_ms = NULL, updated_at_ms = ?
                        WHERE tenant_id = ? AND message_id = ? AND state = 'pending'
                        """,
                    arguments: [state.rawValue, StoreClock.milliseconds(next), reason, nowMS,
                                result.claimed.message.tenantID, result.claimed.message.id])
            }
        }
    }

    public func release(_ claims: [ClaimedCourierMessage]) async throws {
        guard !claims.isEmpty else { return }
        try await pool.write { db in
            for claim in claims {
                try db.execute(
                    sql: """
                        UPDATE courier_messages SET lease_until_ms = NULL
                        WHERE tenant_id = ? AND message_id = ? AND state = 'pending'
                        """, arguments: [claim.message.tenantID, claim.message.id])
            }
        }
    }

    public func messages(tenantID: String, state: CourierState?, before: String?, limit: Int) async throws
        -> [CourierMessageSummary]
    {
        let after = before.flatMap(CourierCursor.parse)
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT message_id, channel, purpose, recipient_masked, state, attempts, last_error, created_at_ms,
                        updated_at_ms
                    FROM courier_messages
                    WHERE tenant_id = ?1 AND (?2 IS NULL OR state = ?2)
                        AND (?3 IS NULL OR created_at_ms < ?3 OR (created_at_ms = ?3 AND message_id < ?4))
                    ORDER BY created_at_ms DESC, message_id DESC LIMIT ?5
                    """, arguments: [tenantID, state?.rawValue, after?.milliseconds, after?.id ?? "", limit]
            ).compactMap { row in
                guard let channel = CourierMessage.Channel(rawValue: row["channel"]),
                    let state = CourierState(rawValue: row["state"])
                else { return nil }
                return CourierMessageSummary(
                    id: row["message_id"], channel: channel, purpose: row["purpose"], recipient: row["recipient_masked"],
                    state: state, attempts: row["attempts"], lastError: row["last_error"],
                    createdAt: StoreClock.date(row["created_at_ms"]), updatedAt: StoreClock.date(row["updated_at_ms"]))
            }
        }
    }

    public func backlog(now: Date) async throws -> [CourierBacklogEntry] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT tenant_id, channel, count(*) AS pending, min(next_attempt_at_ms) AS oldest
                    FROM courier_messages WHERE state = 'pending' GROUP BY tenant_id, channel
                    """
            ).compactMap { row in
                guard let channel = CourierMessage.Channel(rawValue: row["channel"]) else { return nil }
                return CourierBacklogEntry(
                    tenantID: row["tenant_id"], channel: channel, pending: row["pending"],
                    oldestDueAt: StoreClock.date(row["oldest"]))
            }
        }
    }

    public func purge(createdBefore cutoff: Date, limit: Int) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    DELETE FROM courier_messages WHERE rowid IN (SELECT rowid FROM courier_messages
                        WHERE created_at_ms < ? AND state != 'pending' LIMIT ?)
                    """, arguments: [StoreClock.milliseconds(cutoff), limit])
            return db.changesCount
        }
    }
}
