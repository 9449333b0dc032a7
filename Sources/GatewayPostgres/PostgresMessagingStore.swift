import Foundation
import GatewayCore
import PostgresNIO

/// ``MessagingStore`` on PostgreSQL (`user_contacts`, `user_blocks`, `inbox_messages`).
/// Replacing one user's contacts takes a transaction-scoped advisory lock on the user, so two
/// uploads at once run one after the other; deliveries share their transaction with the push outbox.
public final class PostgresMessagingStore: MessagingStore {
    private let database: PostgresDatabase
    private let sealing: ContactSealing

    public init(database: PostgresDatabase) {
        self.database = database
        self.sealing = ContactSealing(sealer: database.sealer)
    }

    /// The advisory-lock class of contact uploads (the second key is the user's hash).
    private static let contactsLock: Int32 = 31

    public func replaceContacts(_ contacts: [Contact], tenantID: String, userID: String) async throws {
        let users = contacts.filter(\.isUser).map(\.id)
        let ids = contacts.map(\.id), isUser = contacts.map(\.isUser)
        // Names and emails are never empty (ContactRules), so "" stands for none; both sealed.
        let sealed = try contacts.map { try sealing.seal($0, tenantID: tenantID, userID: userID) }
        let names = sealed.map { $0.name ?? "" }, emails = sealed.map { $0.email ?? "" }
        let userKey = "\(tenantID):\(userID)"
        try await database.transaction { connection in
            try await connection.execute(
                "SELECT pg_advisory_xact_lock(\(Self.contactsLock), hashtext(\(userKey)))")
            let unknown = try await connection.column(
                """
                SELECT x FROM unnest(\(users)::text[]) AS x WHERE NOT EXISTS
                    (SELECT 1 FROM auth_users u WHERE u.tenant_id = \(tenantID) AND u.subject = x) LIMIT 10
                """, as: String.self)
            if !unknown.isEmpty { throw MessagingError.invalidContacts(MessagingRows.unknown(unknown)) }
            try await connection.execute(
                "DELETE FROM user_contacts WHERE tenant_id = \(tenantID) AND user_id = \(userID)")
            try await connection.execute(
                """
                INSERT INTO user_contacts (tenant_id, user_id, position, contact_id, is_user, name, email, sealed)
                SELECT \(tenantID), \(userID), (x.o - 1)::int, x.c, x.u, NULLIF(x.n, ''), NULLIF(x.e, ''), true
                FROM unnest(\(ids)::text[], \(isUser)::boolean[], \(names)::text[], \(emails)::text[])
                    WITH ORDINALITY AS x(c, u, n, e, o)
                """)
        }
    }

    public func contacts(tenantID: String, userID: String) async throws -> [Contact] {
        try await database.pool.all(
            """
            SELECT contact_id, name, email, is_user, sealed FROM user_contacts
            WHERE tenant_id = \(tenantID) AND user_id = \(userID) ORDER BY position
            """, as: (String, String?, String?, Bool, Bool).self
        ).map {
            try sealing.contact(
                id: $0.0, name: $0.1, email: $0.2, isUser: $0.3, sealed: $0.4, tenantID: tenantID, userID: userID)
        }
    }

    public func reach(tenantID: String, senderID: String, ids: [String]) async throws -> MessageReach {
        // One round trip: the sender's profile name rides on every row (it matters only when
        // a row is reachable, so no row, no name needed).
        let rows = try await database.pool.all(
            """
            SELECT c.contact_id,
                EXISTS (SELECT 1 FROM auth_users u WHERE u.tenant_id = c.tenant_id AND u.subject = c.contact_id
                    AND NOT u.disabled),
                EXISTS (SELECT 1 FROM user_blocks b WHERE b.tenant_id = c.tenant_id AND b.user_id = c.contact_id
                    AND b.blocked_id = \(senderID)),
                r.name, r.sealed,
                (SELECT s.name FROM auth_users s WHERE s.tenant_id = c.tenant_id AND s.subject = c.user_id)
            FROM user_contacts c
            LEFT JOIN user_contacts r ON r.tenant_id = c.tenant_id AND r.user_id = c.contact_id
                AND r.contact_id = \(senderID)
            WHERE c.tenant_id = \(tenantID) AND c.user_id = \(senderID) AND c.is_user AND c.contact_id = ANY(\(ids)::text[])
            """, as: (String, Bool, Bool, String?, Bool?, String?).self)
        return MessageReach(
            senderProfileName: rows.first?.5 ?? nil,
            recipients: MessagingRows.reach(
                ids,
                try rows.map {
                    (
                        $0.0, $0.1, $0.2,
                        try sealing.open(
                            $0.3, sealed: $0.4 ?? false, field: "name", tenantID: tenantID, userID: $0.0,
                            contactID: senderID)
                    )
                }))
    }

    public func deliver(_ messages: [OutgoingMessage], keep: Int, recording record: MessageSendRecord?) async throws {
        let rows = try messages.map { ($0, try MessagingRows.document($0.item.content), try PushOutboxRows.document($0.push)) }
        let inboxes = Set(messages.map { [$0.tenantID, $0.recipientID] }).sorted { $0.lexicographicallyPrecedes($1) }
        let outcomes = try record.map { try MessageSendRecord.document($0.outcomes) }
        try await database.transaction { connection in
            if let record, let outcomes {
                // A record of the key older than a day is replaced; a live one means another send took the key.
                let created = StoreClock.milliseconds(record.createdAt)
                let stale = StoreClock.milliseconds(record.createdAt.addingTimeInterval(-MessageSendRecord.lifetime))
                let (tenantID, senderID, key, hash) = (record.tenantID, record.senderID, record.key, record.requestHash)
                let written = try await connection.execute(
                    """
                    INSERT INTO message_sends (tenant_id, sender_id, idempotency_key, request_hash, outcomes, created_at_ms)
                    VALUES (\(tenantID), \(senderID), \(key), \(hash), \(outcomes), \(created))
                    ON CONFLICT (tenant_id, sender_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash,
                        outcomes = excluded.outcomes, created_at_ms = excluded.created_at_ms
                    WHERE message_sends.created_at_ms < \(stale)
                    RETURNING 1
                    """)
                if written == 0 { throw MessageSendKeyTaken() }
            }
            for (message, document, pushDocument) in rows {
                let item = message.item
                let created = StoreClock.milliseconds(item.createdAt), expires = StoreClock.milliseconds(message.expiresAt)
                try await connection.execute(
                    """
                    INSERT INTO inbox_messages (tenant_id, message_id, recipient_id, sender_id, sender_name, mini_app_id,
                        document, read, created_at_ms, expires_at_ms)
                    VALUES (\(message.tenantID), \(item.id), \(message.recipientID), \(item.senderID), \(item.senderName),
                        \(item.miniAppID), \(document), false, \(created), \(expires))
                    """)
                _ = try await PostgresPushOutboxStore.enqueue(
                    message.push, document: pushDocument, idempotencyKey: nil, requestHash: "", on: connection)
            }
            for inbox in inboxes {
                let (tenantID, recipientID) = (inbox[0], inbox[1])
                try await connection.execute(
                    """
                    DELETE FROM inbox_messages WHERE tenant_id = \(tenantID) AND recipient_id = \(recipientID) AND id <=
                        (SELECT id FROM inbox_messages WHERE tenant_id = \(tenantID) AND recipient_id = \(recipientID)
                         ORDER BY id DESC OFFSET \(keep) LIMIT 1)
                    """)
            }
        }
    }

    public func inbox(tenantID: String, userID: String, before: InboxCursor?, limit: Int, now: Date) async throws
        -> InboxPage
    {
        let nowMS = StoreClock.milliseconds(now)
        let before = before?.before ?? Int64.max
        let rows = try await database.pool.all(
            """
            SELECT id, message_id, sender_id, sender_name, mini_app_id, document, read, created_at_ms FROM inbox_messages
            WHERE tenant_id = \(tenantID) AND recipient_id = \(userID) AND expires_at_ms > \(nowMS) AND id < \(before)
            ORDER BY id DESC LIMIT \(limit + 1)
            """, as: (Int64, String, String, String?, String, String, Bool, Int64).self)
        let unread = try await database.pool.first(
            """
            SELECT count(*)::bigint FROM inbox_messages
            WHERE tenant_id = \(tenantID) AND recipient_id = \(userID) AND expires_at_ms > \(nowMS) AND NOT read
            """, as: Int64.self) ?? Int64(0)
        return MessagingRows.page(
            try rows.map { row in
                (row.0, InboxItem(
                    id: row.1, senderID: row.2, senderName: row.3, miniAppID: row.4,
                    content: try MessagingRows.content(row.5), read: row.6, createdAt: StoreClock.date(row.7)))
            }, limit: limit, unread: Int(unread))
    }

    public func markRead(tenantID: String, userID: String, messageID: String) async throws -> Bool {
        try await database.pool.execute(
            """
            UPDATE inbox_messages SET read = true
            WHERE tenant_id = \(tenantID) AND recipient_id = \(userID) AND message_id = \(messageID) RETURNING 1
            """) > 0
    }

    public func deleteMessage(tenantID: String, userID: String, messageID: String) async throws -> Bool {
        try await database.pool.execute(
            """
            DELETE FROM inbox_messages
            WHERE tenant_id = \(tenantID) AND recipient_id = \(userID) AND message_id = \(messageID) RETURNING 1
            """) > 0
    }

    public func block(tenantID: String, userID: String, blockedID: String, now: Date, max: Int) async throws {
        let at = StoreClock.milliseconds(now)
        try await database.transaction { connection in
            let inserted = try await connection.execute(
                """
                INSERT INTO user_blocks (tenant_id, user_id, blocked_id, created_at_ms)
                VALUES (\(tenantID), \(userID), \(blockedID), \(at)) ON CONFLICT DO NOTHING RETURNING 1
                """)
            guard inserted > 0 else { return }
            let held = try await connection.first(
                "SELECT count(*)::bigint FROM user_blocks WHERE tenant_id = \(tenantID) AND user_id = \(userID)",
                as: Int64.self) ?? Int64(0)
            if held > Int64(max) { throw MessagingError.invalidBlock(MessagingRows.tooManyBlocks(max)) }
        }
    }

    public func unblock(tenantID: String, userID: String, blockedID: String) async throws -> Bool {
        try await database.pool.execute(
            """
            DELETE FROM user_blocks WHERE tenant_id = \(tenantID) AND user_id = \(userID) AND blocked_id = \(blockedID)
            RETURNING 1
            """) > 0
    }

    public func blocked(tenantID: String, userID: String) async throws -> [BlockedUser] {
        try await database.pool.all(
            """
            SELECT blocked_id, created_at_ms FROM user_blocks WHERE tenant_id = \(tenantID) AND user_id = \(userID)
            ORDER BY created_at_ms DESC, blocked_id COLLATE "C"
            """, as: (String, Int64).self
        ).map { BlockedUser(userID: $0.0, blockedAt: StoreClock.date($0.1)) }
    }

    public func inboxSize(tenantID: String, userID: String, now: Date) async throws -> InboxSize {
        let row = try await database.pool.first(
            """
            SELECT count(*)::bigint, count(*) FILTER (WHERE NOT read)::bigint FROM inbox_messages
            WHERE tenant_id = \(tenantID) AND recipient_id = \(userID) AND expires_at_ms > \(StoreClock.milliseconds(now))
            """, as: (Int64, Int64).self)
        return InboxSize(total: Int(row?.0 ?? 0), unread: Int(row?.1 ?? 0))
    }

    public func purgeMessages(expiredBefore cutoff: Date, limit: Int) async throws -> Int {
        try await database.pool.execute(
            """
            DELETE FROM inbox_messages WHERE id IN
                (SELECT id FROM inbox_messages WHERE expires_at_ms <= \(StoreClock.milliseconds(cutoff)) LIMIT \(limit))
            RETURNING 1
            """)
    }

    public func purgeMessages(tenantID: String) async throws -> Int {
        try await database.pool.execute("DELETE FROM inbox_messages WHERE tenant_id = \(tenantID) RETURNING 1")
    }

    public func sealLegacyContacts(limit: Int) async throws -> Int {
        let sealing = self.sealing
        return try await database.transaction { connection in
            let rows = try await connection.all(
                """
                SELECT ctid::text, tenant_id, user_id, contact_id, is_user, name, email FROM user_contacts
                WHERE NOT sealed LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """, as: (String, String, String, String, Bool, String?, String?).self)
            for (row, tenantID, userID, contactID, isUser, name, email) in rows {
                let sealed = try sealing.seal(
                    Contact(id: contactID, name: name, email: email, isUser: isUser), tenantID: tenantID, userID: userID)
                try await connection.execute(
                    """
                    UPDATE user_contacts SET name = \(sealed.name), email = \(sealed.email), sealed = true
                    WHERE ctid = \(row)::tid
                    """)
            }
            return rows.count
        }
    }

    public func sendRecord(
        tenantID: String, senderID: String, key: String, since: Date
    ) async throws -> MessageSendRecord? {
        let row = try await database.pool.first(
            """
            SELECT request_hash, outcomes, created_at_ms FROM message_sends
            WHERE tenant_id = \(tenantID) AND sender_id = \(senderID) AND idempotency_key = \(key)
                AND created_at_ms >= \(StoreClock.milliseconds(since))
            """, as: (String, String, Int64).self)
        return try row.map { hash, outcomes, at in
            MessageSendRecord(
                tenantID: tenantID, senderID: senderID, key: key, requestHash: hash,
                outcomes: try MessageSendRecord.outcomes(outcomes), createdAt: StoreClock.date(at))
        }
    }

    public func purgeSendRecords(before cutoff: Date, limit: Int) async throws -> Int {
        try await database.pool.execute(
            """
            DELETE FROM message_sends WHERE ctid IN
                (SELECT ctid FROM message_sends WHERE created_at_ms < \(StoreClock.milliseconds(cutoff)) LIMIT \(limit))
            RETURNING 1
            """)
    }
}
