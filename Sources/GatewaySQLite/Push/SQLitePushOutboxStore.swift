import Foundation
import GatewayCore
import GRDB

/// ``PushOutboxStore`` and ``PushDeliveryQueue`` in the tenant store's SQLite file
/// (`push_messages`, `push_deliveries`); one process writes, so claims need no row locks.
public final class SQLitePushOutboxStore: PushOutboxStore, PushDeliveryQueue {
    private let pool: DatabasePool
    private let sealer: SecretSealer

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
        self.sealer = database.sealer
    }

    public func enqueue(
        _ message: PushMessage, idempotencyKey: String?, requestHash: String,
        trail: (@Sendable (_ messageID: String, _ deliveries: Int) -> AuditDraft)?
    ) async throws -> EnqueueOutcome {
        let document = try PushOutboxRows.document(message)
        let users = try PushOutboxRows.userIDs(message.content.recipients)
        return try await pool.write { db in
            let outcome = try Self.enqueue(
                message, document: document, users: users, idempotencyKey: idempotencyKey, requestHash: requestHash, in: db)
            if let trail, case .queued(let id, let deliveries) = outcome {
                _ = try SQLiteAuditTrail.append(trail(id, deliveries), in: db)
            }
            return outcome
        }
    }

    /// Queues `message` inside the caller's transaction (the inbox queues its pushes so).
    static func enqueue(
        _ message: PushMessage, document: String, users: String?, idempotencyKey: String?, requestHash: String,
        in db: Database
    ) throws -> EnqueueOutcome {
        let now = StoreClock.milliseconds(message.createdAt)
        if let idempotencyKey,
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT message_id, request_hash FROM push_messages
                    WHERE tenant_id = ? AND client_id = ? AND idempotency_key = ?
                    """, arguments: [message.tenantID, message.clientID, idempotencyKey])
        {
            guard row["request_hash"] as String == requestHash else { throw NotificationError.idempotencyConflict }
            return .replayed(messageID: row["message_id"])
        }
        try db.execute(
            sql: """
                INSERT INTO push_messages (tenant_id, message_id, client_id, mini_app_id, idempotency_key, request_hash,
                    document, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [message.tenantID, message.id, message.clientID, message.miniAppID, idempotencyKey,
                        requestHash, document, now, StoreClock.milliseconds(message.expiresAt)])
        // One delivery per device of a recipient: pending where the user allows notifications
        // from the mini app (or on the host app's own channel), skipped otherwise; for "all",
        // only the users who allow them.
        let recipients = users == nil ? "c.status = 'ALLOWED'" : "d.user_id IN (SELECT value FROM json_each(?7))"
        var arguments: StatementArguments = [
            message.tenantID, message.id, message.miniAppID, now, CustomPermission.notifications.rawValue,
            SignInRequestPush.channel,
        ]
        if let users { arguments += [users] }
        try db.execute(
            sql: """
                INSERT INTO push_deliveries (tenant_id, message_id, device_id, user_id, provider, state, attempts,
                    next_attempt_at_ms, updated_at_ms)
                SELECT d.tenant_id, ?2, d.device_id, d.user_id, d.provider,
                    CASE WHEN c.status = 'ALLOWED' OR ?3 = ?6 THEN 'pending' ELSE 'skipped_no_consent' END, 0, ?4, ?4
                FROM push_devices d LEFT JOIN user_consents c ON c.tenant_id = d.tenant_id AND c.user_id = d.user_id
                    AND c.miniapp_id = ?3 AND c.permission = ?5
                WHERE d.tenant_id = ?1 AND \(recipients) AND (?3 != ?6 OR d.sign_in_requests = 1)
                """, arguments: arguments)
        return .queued(messageID: message.id, deliveries: db.changesCount)
    }

    public func status(tenantID: String, clientID: String?, messageID: String, limit: Int) async throws
        -> PushMessageStatus?
    {
        let read = try await pool.read { db -> (String, [(String, Int)], [(String, String, String, Int)])? in
            guard
                let document = try String.fetchOne(
                    db,
                    sql: """
                        SELECT document FROM push_messages
                        WHERE tenant_id = ? AND message_id = ? AND (?3 IS NULL OR client_id = ?3)
                        """,
                    arguments: [tenantID, messageID, clientID])
            else { return nil }
            let counts = try Row.fetchAll(
                db,
                sql: """
                    SELECT state, COUNT(*) AS n FROM push_deliveries WHERE tenant_id = ? AND message_id = ? GROUP BY state
                    """, arguments: [tenantID, messageID]
            ).map { ($0["state"] as String, $0["n"] as Int) }
            let deliveries = try Row.fetchAll(
                db,
                sql: """
                    SELECT device_id, user_id, state, attempts FROM push_deliveries WHERE tenant_id = ? AND message_id = ?
                    ORDER BY device_id LIMIT ?
                    """, arguments: [tenantID, messageID, limit]
            ).map { ($0["device_id"] as String, $0["user_id"] as String, $0["state"] as String, $0["attempts"] as Int) }
            return (document, counts, deliveries)
        }
        guard let (document, counts, deliveries) = read else { return nil }
        return try PushOutboxStatus.make(document: document, counts: counts, deliveries: deliveries)
    }

    public func countsByProvider(
        tenantID: String, messageID: String
    ) async throws -> [PushProvider: [DeliveryState: Int]] {
        let rows = try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT provider, state, COUNT(*) AS n FROM push_deliveries
                    WHERE tenant_id = ? AND message_id = ? GROUP BY provider, state
                    """, arguments: [tenantID, messageID]
            ).map { ($0["provider"] as String, $0["state"] as String, $0["n"] as Int) }
        }
        return PushOutboxStatus.byProvider(rows)
    }

    public func pendingDeliveries(tenantIDs: [String]) async throws -> [String: Int] {
        guard !tenantIDs.isEmpty else { return [:] }
        return try await pool.read { db in
            let marks = Array(repeating: "?", count: tenantIDs.count).joined(separator: ", ")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT tenant_id, COUNT(*) AS n FROM push_deliveries
                    WHERE state = 'pending' AND tenant_id IN (\(marks)) GROUP BY tenant_id
                    """, arguments: StatementArguments(tenantIDs))
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["tenant_id"] as String, $0["n"] as Int) })
        }
    }

    public func messages(tenantID: String, before: String?, limit: Int) async throws -> [PushMessageSummary] {
        let after = before.flatMap(PushMessageSummary.parse(cursor:))
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT message_id, client_id, mini_app_id, created_at_ms FROM push_messages
                    WHERE tenant_id = ?1 AND (?2 IS NULL OR created_at_ms < ?2 OR (created_at_ms = ?2 AND message_id < ?3))
                    ORDER BY created_at_ms DESC, message_id DESC LIMIT ?4
                    """, arguments: [tenantID, after?.milliseconds, after?.id ?? "", limit])
            return try rows.map { row in
                var counts: [DeliveryState: Int] = [:]
                for count in try Row.fetchAll(
                    db,
                    sql: "SELECT state, COUNT(*) AS n FROM push_deliveries WHERE tenant_id = ? AND message_id = ? GROUP BY state",
                    arguments: [tenantID, row["message_id"] as String])
                {
                    if let state = DeliveryState(rawValue: count["state"]) { counts[state] = count["n"] }
                }
                return PushMessageSummary(
                    id: row["message_id"], clientID: row["client_id"], miniAppID: row["mini_app_id"],
                    createdAt: StoreClock.date(row["created_at_ms"]), counts: counts)
            }
        }
    }

    public func purge(expiredBefore cutoff: Date, limit: Int) async throws -> Int {
        try await pool.write { db in
            let gone = try Row.fetchAll(
                db, sql: "SELECT tenant_id, message_id FROM push_messages WHERE expires_at_ms < ? LIMIT ?",
                arguments: [StoreClock.milliseconds(cutoff), limit])
            for row in gone {
                let key: StatementArguments = [row["tenant_id"] as String, row["message_id"] as String]
                try db.execute(sql: "DELETE FROM push_deliveries WHERE tenant_id = ? AND message_id = ?", arguments: key)
                try db.execute(sql: "DELETE FROM push_messages WHERE tenant_id = ? AND message_id = ?", arguments: key)
            }
            return gone.count
        }
    }

    public func claim(limit: Int, lease: Duration, now: Date) async throws -> [ClaimedDelivery] {
        let nowMS = StoreClock.milliseconds(now)
        let until = nowMS + lease.wholeMilliseconds
        let sealer = self.sealer
        return try await pool.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.tenant_id, d.message_id, d.device_id AS delivery_device, d.user_id AS delivery_user,
                        d.attempts, m.document, v.device_id, v.user_id, v.provider, v.token_sealed, v.platform, v.locale,
                        v.app_version, v.apns_environment, v.created_at_ms, v.updated_at_ms,
                        CASE WHEN EXISTS (SELECT 1 FROM auth_users u WHERE u.tenant_id = d.tenant_id
                            AND u.subject = d.user_id AND u.disabled) THEN 'DISABLED'
                            WHEN m.mini_app_id = ? THEN 'ALLOWED' ELSE c.status END AS status
                    FROM push_deliveries d
                    LEFT JOIN push_messages m ON m.tenant_id = d.tenant_id AND m.message_id = d.message_id
                    LEFT JOIN push_devices v ON v.tenant_id = d.tenant_id AND v.device_id = d.device_id
                    LEFT JOIN user_consents c ON c.tenant_id = d.tenant_id AND c.user_id = d.user_id
                        AND c.miniapp_id = m.mini_app_id AND c.permission = ?
                    WHERE d.state = 'pending' AND d.next_attempt_at_ms <= ? AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= ?)
                    ORDER BY d.next_attempt_at_ms LIMIT ?
                    """,
                arguments: [SignInRequestPush.channel, CustomPermission.notifications.rawValue, nowMS, nowMS, limit])
            let leased = rows.map { row in
                PushClaimPlanner.Leased(
                    tenantID: row["tenant_id"], messageID: row["message_id"], deviceID: row["delivery_device"],
                    userID: row["delivery_user"], attempts: row["attempts"], document: row["document"],
                    device: (row["device_id"] as String?) == nil ? nil : SQLiteDeviceStore.stored(row),
                    consented: (row["status"] as String?) == ConsentStatus.allowed.rawValue)
            }
            let (claimed, ended) = PushClaimPlanner.plan(leased, now: now, sealer: sealer)
            for delivery in claimed {
                try db.execute(
                    sql: """
                        UPDATE push_deliveries SET lease_until_ms = ? WHERE tenant_id = ? AND message_id = ? AND device_id = ?
                        """, arguments: [until, delivery.tenantID, delivery.messageID, delivery.deviceID])
            }
            for (row, state) in ended {
                try db.execute(
                    sql: """
                        UPDATE push_deliveries SET state = ?, lease_until_ms = NULL, updated_at_ms = ?
                        WHERE tenant_id = ? AND message_id = ? AND device_id = ?
                        """, arguments: [state.rawValue, nowMS, row.tenantID, row.messageID, row.deviceID])
            }
            return claimed
        }
    }

    public func record(_ results: [DeliveryResult], now: Date) async throws {
        guard !results.isEmpty else { return }
        let nowMS = StoreClock.milliseconds(now)
        try await pool.write { db in
            for result in results {
                let (state, next) = PushClaimPlanner.result(of: result.outcome, now: now)
                let delivery = result.delivery
                try db.execute(
                    sql: """
                        UPDATE push_deliveries SET state = ?, attempts = attempts + 1, next_attempt_at_ms = ?,
                            lease_until_ms = NULL, updated_at_ms = ?
                        WHERE tenant_id = ? AND message_id = ? AND device_id = ? AND state = 'pending'
                        """,
                    arguments: [state.rawValue, StoreClock.milliseconds(next), nowMS, delivery.tenantID,
                                delivery.messageID, delivery.deviceID])
                if result.outcome == .invalidToken {
                    try db.execute(
                        sql: "DELETE FROM push_devices WHERE tenant_id = ? AND device_id = ? AND user_id = ?",
                        arguments: [delivery.tenantID, delivery.deviceID, delivery.userID])
                }
            }
        }
    }

    public func release(_ deliveries: [ClaimedDelivery]) async throws {
        guard !deliveries.isEmpty else { return }
        try await pool.write { db in
            for delivery in deliveries {
                try db.execute(
                    sql: """
                        UPDATE push_deliveries SET lease_until_ms = NULL
                        WHERE tenant_id = ? AND message_id = ? AND device_id = ? AND state = 'pending'
                        """, arguments: [delivery.tenantID, delivery.messageID, delivery.deviceID])
            }
        }
    }

    public func backlog(now: Date) async throws -> [PushBacklogEntry] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT tenant_id, provider, count(*) AS pending, min(next_attempt_at_ms) AS oldest
                    FROM push_deliveries WHERE state = 'pending' GROUP BY tenant_id, provider
                    """
            ).compactMap { row in
                guard let provider = PushProvider(rawValue: row["provider"]) else { return nil }
                return PushBacklogEntry(
                    tenantID: row["tenant_id"], provider: provider, pending: row["pending"],
                    oldestDueAt: StoreClock.date(row["oldest"]))
            }
        }
    }
}
