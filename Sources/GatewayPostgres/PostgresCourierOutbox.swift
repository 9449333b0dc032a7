import Foundation
import GatewayCore
import PostgresNIO

/// ``CourierOutbox`` on PostgreSQL (`courier_messages`, beside push's outbox). Claims lock the
/// due rows `FOR UPDATE SKIP LOCKED`, so workers on every replica take disjoint batches, and
/// lease them in the same transaction.
public final class PostgresCourierOutbox: CourierOutbox {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func enqueue(_ message: CourierMessage) async throws {
        let sealed = try database.sealer.seal(try message.sealedPart(), context: message.sealingContext)
        let created = StoreClock.milliseconds(message.createdAt)
        let expires = StoreClock.milliseconds(message.expiresAt)
        let (tenantID, id, channel, purpose, masked) = (
            message.tenantID, message.id, message.channel.rawValue, message.purpose, message.maskedRecipient
        )
        try await database.pool.execute(
            """
            INSERT INTO courier_messages (tenant_id, message_id, channel, purpose, recipient_masked, sealed, state,
                attempts, next_attempt_at_ms, created_at_ms, expires_at_ms, updated_at_ms)
            VALUES (\(tenantID), \(id), \(channel), \(purpose), \(masked), \(sealed), 'pending', 0, \(created),
                \(created), \(expires), \(created))
            """)
    }

    public func claim(limit: Int, lease: Duration, now: Date) async throws -> [ClaimedCourierMessage] {
        let nowMS = StoreClock.milliseconds(now)
        let until = nowMS + lease.wholeMilliseconds
        let sealer = database.sealer
        return try await database.transaction { connection in
            let rows = try await connection.all(
                """
                SELECT tenant_id, message_id, channel, purpose, sealed, attempts, created_at_ms, expires_at_ms
                FROM courier_messages
                WHERE state = 'pending' AND next_attempt_at_ms <= \(nowMS)
                    AND (lease_until_ms IS NULL OR lease_until_ms <= \(nowMS))
                ORDER BY next_attempt_at_ms LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
                """, as: (String, String, String, String, String, Int32, Int64, Int64).self)
            let leased = rows.map {
                CourierClaimPlanner.Leased(
                    tenantID: $0.0, messageID: $0.1, channel: $0.2, purpose: $0.3, sealed: $0.4, attempts: Int($0.5),
                    createdAt: StoreClock.date($0.6), expiresAt: StoreClock.date($0.7))
            }
            let (claimed, ended) = CourierClaimPlanner.plan(leased, now: now, sealer: sealer)
            if !claimed.isEmpty {
                try await connection.execute(
                    """
                    UPDATE courier_messages c SET lease_until_ms = \(until)
                    FROM unnest(\(claimed.map(\.message.tenantID))::text[], \(claimed.map(\.message.id))::text[]) AS k(t, m)
                    WHERE c.tenant_id = k.t AND c.message_id = k.m
                    """)
            }
            if !ended.isEmpty {
                try await connection.execute(
                    """
                    UPDATE courier_messages c SET state = k.s, last_error = k.e, lease_until_ms = NULL,
                        updated_at_ms = \(nowMS)
                    FROM unnest(\(ended.map(\.0.tenantID))::text[], \(ended.map(\.0.messageID))::text[],
                        \(ended.map(\.1.rawValue))::text[], \(ended.map(\.2))::text[]) AS k(t, m, s, e)
                    WHERE c.tenant_id = k.t AND c.message_id = k.m
                    """)
            }
            return claimed
        }
    }

    public func record(_ results: [CourierResult], now: Date) async throws {
        guard !results.isEmpty else { return }
        let nowMS = StoreClock.milliseconds(now)
        let planned = results.map { result in
            let (state, next, reason) = result.stored(now: now)
            return (
                tenantID: result.claimed.message.tenantID, id: result.claimed.message.id, state: state.rawValue,
                next: StoreClock.milliseconds(next), reason: reason ?? ""
            )
        }
        try await database.pool.execute(
            """
            UPDATE courier_messages c SET state = k.s, attempts = c.attempts + 1, next_attempt_at_ms = k.n,
                last_error = NULLIF(k.e, ''), lease_until_ms = NULL, updated_at_ms = \(nowMS)
            FROM unnest(\(planned.map(\.tenantID))::text[], \(planned.map(\.id))::text[], \(planned.map(\.state))::text[],
                \(planned.map(\.next))::bigint[], \(planned.map(\.reason))::text[]) AS k(t, m, s, n, e)
            WHERE c.tenant_id = k.t AND c.message_id = k.m AND c.state = 'pending'
            """)
    }

    public func release(_ claims: [ClaimedCourierMessage]) async throws {
        guard !claims.isEmpty else { return }
        try await database.pool.execute(
            """
            UPDATE courier_messages c SET lease_until_ms = NULL
            FROM unnest(\(claims.map(\.message.tenantID))::text[], \(claims.map(\.message.id))::text[]) AS k(t, m)
            WHERE c.tenant_id = k.t AND c.message_id = k.m AND c.state = 'pending'
            """)
    }

    public func messages(tenantID: String, state: CourierState?, before: String?, limit: Int) async throws
        -> [CourierMessageSummary]
    {
        let after = before.flatMap(CourierCursor.parse)
        let (stateName, afterMS, afterID) = (state?.rawValue, after?.milliseconds, after?.id ?? "")
        return try await database.pool.all(
            """
            SELECT message_id, channel, purpose, recipient_masked, state, attempts, last_error, created_at_ms, updated_at_ms
            FROM courier_messages
            WHERE tenant_id = \(tenantID) AND (\(stateName)::text IS NULL OR state = \(stateName))
                AND (\(afterMS)::bigint IS NULL OR created_at_ms < \(afterMS)
                    OR (created_at_ms = \(afterMS) AND message_id COLLATE "C" < \(afterID)))
            ORDER BY created_at_ms DESC, message_id COLLATE "C" DESC LIMIT \(limit)
            """, as: (String, String, String, String, String, Int32, String?, Int64, Int64).self
        ).compactMap { row in
            guard let channel = CourierMessage.Channel(rawValue: row.1), let state = CourierState(rawValue: row.4) else {
                return nil
            }
            return CourierMessageSummary(
                id: row.0, channel: channel, purpose: row.2, recipient: row.3, state: state, attempts: Int(row.5),
                lastError: row.6, createdAt: StoreClock.date(row.7), updatedAt: StoreClock.date(row.8))
        }
    }

    public func backlog(now: Date) async throws -> [CourierBacklogEntry] {
        try await database.pool.all(
            """
            SELECT tenant_id, channel, count(*), min(next_attempt_at_ms) FROM courier_messages
            WHERE state = 'pending' GROUP BY tenant_id, channel
            """, as: (String, String, Int64, Int64).self
        ).compactMap { tenantID, channel, pending, oldest in
            CourierMessage.Channel(rawValue: channel).map {
                CourierBacklogEntry(tenantID: tenantID, channel: $0, pending: Int(pending), oldestDueAt: StoreClock.date(oldest))
            }
        }
    }

    public func purge(createdBefore cutoff: Date, limit: Int) async throws -> Int {
        let cutoffMS = StoreClock.milliseconds(cutoff)
        return try await database.pool.execute(
            """
            DELETE FROM courier_messages WHERE (tenant_id, message_id) IN (
                SELECT tenant_id, message_id FROM courier_messages
                WHERE created_at_ms < \(cutoffMS) AND state != 'pending' LIMIT \(limit))
            RETURNING 1
            """)
    }
}
