import Foundation
import GatewayCore
import GRDB

/// ``MessagingStore`` in the tenant store's SQLite file (`user_contacts`, `user_blocks`,
/// `inbox_messages`); deliveries share the write transaction with the push outbox.
public final class SQLiteMessagingStore: MessagingStore {
    private let pool: DatabasePool
    private let sealing: ContactSealing

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
        self.sealing = ContactSealing(sealer: database.sealer)
    }

    public func replaceContacts(_ contacts: [Contact], tenantID: String, userID: String) async throws {
        let users = String(decoding: try JSONEncoder().encode(contacts.filter(\.isUser).map(\.id)), as: UTF8.self)
        let sealed = try contacts.map { try sealing.seal($0, tenantID: tenantID, userID: userID) }
        try await pool.write { db in
            let unknown = try String.fetchAll(
                db,
                sql: """
                    SELECT value FROM json_each(?) WHERE value NOT IN
                        (SELECT subject FROM auth_users WHERE tenant_id = ?) LIMIT 10
                    """, arguments: [users, tenantID])
            if !unknown.isEmpty { throw MessagingError.invalidContacts(MessagingRows.unknown(unknown)) }
            try db.execute(sql: "DELETE FROM user_contacts WHERE tenant_id = ? AND user_id = ?", arguments: [tenantID, userID])
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO user_contacts (tenant_id, user_id, position, contact_id, is_user, name, email, sealed)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 1)
                    """)
            for (position, contact) in contacts.enumerated() {
                try insert.execute(arguments: [
                    tenantID, userID, position, contact.id, contact.isUser, sealed[position].name, sealed[position].email,
                ])
            }
        }
    }

    public func contacts(tenantID: String, userID: String) async throws -> [Contact] {
        let rows: [(id: String, name: String?, email: String?, isUser: Bool, sealed: Bool)] = try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT contact_id, name, email, is_user, sealed FROM user_contacts WHERE tenant_id = ? AND user_id = ?
                    ORDER BY position
                    """, arguments: [tenantID, userID]
            ).map { ($0["contact_id"], $0["name"], $0["email"], $0["is_user"], $0["sealed"]) }
        }
        return try rows.map {
            try sealing.contact(
                id: $0.id, name: $0.name, email: $0.email, isUser: $0.isUser, sealed: $0.sealed, tenantID: tenantID,
                userID: userID)
        }
    }

    public func reach(tenantID: String, senderID: String, ids: [String]) async throws -> MessageReach {
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        let (profile, rows): (String?, [(id: String, live: Bool, blocked: Bool, name: String?, sealed: Bool?)]) =
            try await pool.read { db in
                let profile = try String?.fetchOne(
                    db, sql: "SELECT name FROM auth_users WHERE tenant_id = ? AND subject = ?",
                    arguments: [tenantID, senderID])
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.contact_id,
                            EXISTS (SELECT 1 FROM auth_users u WHERE u.tenant_id = c.tenant_id AND u.subject = c.contact_id
                                AND NOT u.disabled) AS live,
                            EXISTS (SELECT 1 FROM user_blocks b WHERE b.tenant_id = c.tenant_id AND b.user_id = c.contact_id
                                AND b.blocked_id = ?2) AS blocked,
                            r.name AS their_name, r.sealed AS their_name_sealed
                        FROM user_contacts c
                        LEFT JOIN user_contacts r ON r.tenant_id = c.tenant_id AND r.user_id = c.contact_id
                            AND r.contact_id = ?2
                        WHERE c.tenant_id = ?1 AND c.user_id = ?2 AND c.is_user AND c.contact_id IN (SELECT value FROM json_each(?3))
                        """, arguments: [tenantID, senderID, list]
                ).map { row -> (id: String, live: Bool, blocked: Bool, name: String?, sealed: Bool?) in
                    (row["contact_id"], row["live"], row["blocked"], row["their_name"], row["their_name_sealed"])
                }
                return (profile ?? nil, rows)
            }
        return MessageReach(
            senderProfileName: profile,
            recipients: MessagingRows.reach(
                ids,
                try rows.map {
                    (
                        $0.id, $0.live, $0.blocked,
                        try sealing.open(
                            $0.name, sealed: $0.sealed ?? false, field: "name", tenantID: tenantID, userID: $0.id,
                            contactID: senderID)
                    )
                }))
    }

    public func deliver(_ messages: [OutgoingMessage], keep: Int, recording record: MessageSendRecord?) async throws {
        let rows = try messages.map { message in
            (message, try MessagingRows.document(message.item.content), try PushOutboxRows.document(message.push),
             try PushOutboxRows.userIDs(message.push.content.recipients))
        }
        let outcomes = try record.map { try MessageSendRecord.document($0.outcomes) }
        try await pool.write { db in
            if let record, let outcomes {
                // A record of the key older than a day is replaced; a live one means another send took the key.
                try db.execute(
                    sql: """
                        INSERT INTO message_sends (tenant_id, sender_id, idempotency_key, request_hash, outcomes, created_at_ms)
                        VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (tenant_id, sender_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash,
                            outcomes = excluded.outcomes, created_at_ms = excluded.created_at_ms
                        WHERE message_sends.created_at_ms < ?
                        """,
                    arguments: [
                        record.tenantID, record.senderID, record.key, record.requestHash, outcomes,
                        StoreClock.milliseconds(record.createdAt),
                        StoreClock.milliseconds(record.createdAt.addingTimeInterval(-MessageSendRecord.lifetime)),
                    ])
                if db.changesCount == 0 { throw MessageSendKeyTaken() }
            }
            for (message, document, pushDocument, users) in rows {
                let item = message.item
                try db.execute(
                    sql: """
                        INSERT INTO inbox_messages (tenant_id, message_id, recipient_id, sender_id, sender_name, mini_app_id,
                            document, read, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
                        """,
                    arguments: [message.tenantID, item.id, message.recipientID, item.senderID, item.senderName,
                                item.miniAppID, document, StoreClock.milliseconds(item.createdAt),
                                StoreClock.milliseconds(message.expiresAt)])
                _ = try SQLitePushOutboxStore.enqueue(
                    message.push, document: pushDocument, users: users, idempotencyKey: nil, requestHash: "", in: db)
            }
            for (tenantID, recipientID) in Set(messages.map { [$0.tenantID, $0.recipientID] }).map({ ($0[0], $0[1]) }) {
                try db.execute(
                    sql: """
                        DELETE FROM inbox_messages WHERE tenant_id = ?1 AND recipient_id = ?2 AND id <=
                            (SELECT id FROM inbox_messages WHERE tenant_id = ?1 AND recipient_id = ?2
                             ORDER BY id DESC LIMIT 1 OFFSET ?3)
                        """, arguments: [tenantID, recipientID, keep])
            }
        }
    }

    public func inbox(tenantID: String, userID: String, before: InboxCursor?, limit: Int, now: Date) async throws
        -> InboxPage
    {
        let nowMS = StoreClock.milliseconds(now)
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, message_id, sender_id, sender_name, mini_app_id, document, read, created_at_ms
                    FROM inbox_messages WHERE tenant_id = ? AND recipient_id = ? AND expires_at_ms > ? AND id < ?
                    ORDER BY id DESC LIMIT ?
                    """, arguments: [tenantID, userID, nowMS, before?.before ?? Int64.max, limit + 1])
            let unread = try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM inbox_messages WHERE tenant_id = ? AND recipient_id = ? AND expires_at_ms > ?
                        AND NOT read
                    """, arguments: [tenantID, userID, nowMS]) ?? 0
            return MessagingRows.page(
                try rows.map { row in
                    (row["id"], InboxItem(
                        id: row["message_id"], senderID: row["sender_id"], senderName: row["sender_name"],
                        miniAppID: row["mini_app_id"], content: try MessagingRows.content(row["document"]), read: row["read"],
                        createdAt: StoreClock.date(row["created_at_ms"])))
                }, limit: limit, unread: unread)
        }
    }

    public func markRead(tenantID: String, userID: String, messageID: String) async throws -> Bool {
        try await pool.changes(
            sql: "UPDATE inbox_messages SET read = 1 WHERE tenant_id = ? AND recipient_id = ? AND message_id = ?",
            arguments: [tenantID, userID, messageID]) > 0
    }

    public func deleteMessage(tenantID: String, userID: String, messageID: String) async throws -> Bool {
        try await pool.changes(
            sql: "DELETE FROM inbox_messages WHERE tenant_id = ? AND recipient_id = ? AND message_id = ?",
            arguments: [tenantID, userID, messageID]) > 0
    }

    public func block(tenantID: String, userID: String, blockedID: String, now: Date, max: Int) async throws {
        try await pool.write { db in
            let held = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM user_blocks WHERE tenant_id = ? AND user_id = ?",
                arguments: [tenantID, userID]) ?? 0
            try db.execute(
                sql: """
                    INSERT INTO user_blocks (tenant_id, user_id, blocked_id, created_at_ms) VALUES (?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """, arguments: [tenantID, userID, blockedID, StoreClock.milliseconds(now)])
            if db.changesCount > 0, held >= max { throw MessagingError.invalidBlock(MessagingRows.tooManyBlocks(max)) }
        }
    }

    public func unblock(tenantID: String, userID: String, blockedID: String) async throws -> Bool {
        try await pool.changes(
            sql: "DELETE FROM user_blocks WHERE tenant_id = ? AND user_id = ? AND blocked_id = ?",
            arguments: [tenantID, userID, blockedID]) > 0
    }

    public func blocked(tenantID: String, userID: String) async throws -> [BlockedUser] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT blocked_id, created_at_ms FROM user_blocks WHERE tenant_id = ? AND user_id = ?
                    ORDER BY created_at_ms DESC, blocked_id
                    """, arguments: [tenantID, userID]
            ).map { BlockedUser(userID: $0["blocked_id"], blockedAt: StoreClock.date($0["created_at_ms"])) }
        }
    }

    public func inboxSize(tenantID: String, userID: String, now: Date) async throws -> InboxSize {
        try await pool.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*) AS total, coalesce(sum(CASE WHEN read THEN 0 ELSE 1 END), 0) AS unread
                    FROM inbox_messages WHERE tenant_id = ? AND recipient_id = ? AND expires_at_ms > ?
                    """, arguments: [tenantID, userID, StoreClock.milliseconds(now)])
            return InboxSize(total: row?["total"] ?? 0, unread: row?["unread"] ?? 0)
        }
    }

    public func purgeMessages(expiredBefore cutoff: Date, limit: Int) async throws -> Int {
        try await pool.changes(
            sql: """
                DELETE FROM inbox_messages WHERE id IN
                    (SELECT id FROM inbox_messages WHERE expires_at_ms <= ? LIMIT ?)
                """, arguments: [StoreClock.milliseconds(cutoff), limit])
    }

    public func purgeMessages(tenantID: String) async throws -> Int {
        try await pool.changes(sql: "DELETE FROM inbox_messages WHERE tenant_id = ?", arguments: [tenantID])
    }

    public func sealLegacyContacts(limit: Int) async throws -> Int {
        let sealing = self.sealing
        // secure_delete: the plaintext a sealed value replaces is overwritten, not left in free
        // pages; once none is left, a checkpoint drops the old page images from the WAL too.
        let sealed = try await pool.writeWithoutTransaction { db -> Int in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
            var count = 0
            try db.inTransaction {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT rowid, tenant_id, user_id, contact_id, is_user, name, email FROM user_contacts
                        WHERE sealed = 0 LIMIT ?
                        """, arguments: [limit])
                for row in rows {
                    let contact = Contact(
                        id: row["contact_id"], name: row["name"], email: row["email"], isUser: row["is_user"])
                    let sealed = try sealing.seal(contact, tenantID: row["tenant_id"], userID: row["user_id"])
                    try db.execute(
                        sql: "UPDATE user_contacts SET name = ?, email = ?, sealed = 1 WHERE rowid = ?",
                        arguments: [sealed.name, sealed.email, row["rowid"] as Int64])
                }
                count = rows.count
                return .commit
            }
            return count
        }
        if sealed < limit {
            try await pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
        return sealed
    }

    public func sendRecord(
        tenantID: String, senderID: String, key: String, since: Date
    ) async throws -> MessageSendRecord? {
        let row: (hash: String, outcomes: String, at: Int64)? = try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT request_hash, outcomes, created_at_ms FROM message_sends
                    WHERE tenant_id = ? AND sender_id = ? AND idempotency_key = ? AND created_at_ms >= ?
                    """, arguments: [tenantID, senderID, key, StoreClock.milliseconds(since)]
            ).map { ($0["request_hash"], $0["outcomes"], $0["created_at_ms"]) }
        }
        return try row.map {
            MessageSendRecord(
                tenantID: tenantID, senderID: senderID, key: key, requestHash: $0.hash,
                outcomes: try MessageSendRecord.outcomes($0.outcomes), createdAt: StoreClock.date($0.at))
        }
    }

    public func purgeSendRecords(before cutoff: Date, limit: Int) async throws -> Int {
        try await pool.changes(
            sql: """
                DELETE FROM message_sends WHERE rowid IN
                    (SELECT rowid FROM message_sends WHERE created_at_ms < ? LIMIT ?)
                """, arguments: [StoreClock.milliseconds(cutoff), limit])
    }
}
