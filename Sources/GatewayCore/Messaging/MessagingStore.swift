import Foundation

/// How a sender can reach each id it names, read in one go before sending.
public struct MessageReach: Sendable, Equatable {
    /// How one id stands.
    public enum Recipient: Sendable, Equatable {
        /// Not in the sender's contacts, an external contact, or no (enabled) user of the tenant.
        case notAContact
        /// The recipient blocked the sender.
        case blocked
        /// Can be sent to; `senderName` is the name the recipient gave the sender, if any.
        case reachable(senderName: String?)
    }

    /// The sender's profile name.
    public var senderProfileName: String?
    /// Every id asked about.
    public var recipients: [String: Recipient]

    public init(senderProfileName: String?, recipients: [String: Recipient]) {
        self.senderProfileName = senderProfileName
        self.recipients = recipients
    }
}

/// One message on its way into one recipient's inbox, with its push notification.
public struct OutgoingMessage: Sendable, Equatable {
    public var tenantID: String
    public var recipientID: String
    public var item: InboxItem
    public var expiresAt: Date
    /// Queued in the push outbox in the same transaction; the outbox gives each of the
    /// recipient's devices a delivery, pending only where they allow notifications from the mini app.
    public var push: PushMessage

    public init(tenantID: String, recipientID: String, item: InboxItem, expiresAt: Date, push: PushMessage) {
        self.tenantID = tenantID
        self.recipientID = recipientID
        self.item = item
        self.expiresAt = expiresAt
        self.push = push
    }
}

/// A user someone blocked.
public struct BlockedUser: Sendable, Equatable {
    public var userID: String
    public var blockedAt: Date

    public init(userID: String, blockedAt: Date) {
        self.userID = userID
        self.blockedAt = blockedAt
    }
}

/// How many messages an inbox holds.
public struct InboxSize: Sendable, Equatable, Encodable {
    public var total: Int
    public var unread: Int

    public init(total: Int, unread: Int) {
        self.total = total
        self.unread = unread
    }
}

/// Users' contacts, blocks and inboxes, in the tenant database on both engines
/// (`user_contacts`, `user_blocks`, `inbox_messages`).
public protocol MessagingStore: Sendable {
    /// Replaces the user's contacts in one transaction.
    /// - Throws: ``MessagingError/invalidContacts(_:)`` when an `isUser` contact names no user
    ///   of the tenant; then nothing changes.
    func replaceContacts(_ contacts: [Contact], tenantID: String, userID: String) async throws
    /// The user's contacts in upload order.
    func contacts(tenantID: String, userID: String) async throws -> [Contact]
    /// How `senderID` can reach each of `ids` (every id gets an entry).
    func reach(tenantID: String, senderID: String, ids: [String]) async throws -> MessageReach
    /// In one transaction: the messages into their inboxes and their pushes into the outbox,
    /// and `recording` (a send under an `Idempotency-Key`); then each touched inbox keeps its
    /// newest `keep` messages.
    /// - Throws: ``MessageSendKeyTaken`` when a send record with the same key is there already;
    ///   then nothing is written.
    func deliver(_ messages: [OutgoingMessage], keep: Int, recording: MessageSendRecord?) async throws
    /// The send recorded with `key` by `senderID` at or after `since`, if any.
    func sendRecord(tenantID: String, senderID: String, key: String, since: Date) async throws -> MessageSendRecord?
    /// Deletes at most `limit` send records made before `cutoff`; returns how many.
    func purgeSendRecords(before cutoff: Date, limit: Int) async throws -> Int
    /// The user's unexpired messages older than `before`, newest first, at most `limit`.
    func inbox(tenantID: String, userID: String, before: InboxCursor?, limit: Int, now: Date) async throws -> InboxPage
    /// Marks a message read; false when the user has no such message.
    func markRead(tenantID: String, userID: String, messageID: String) async throws -> Bool
    /// Deletes a message; false when the user has no such message.
    func deleteMessage(tenantID: String, userID: String, messageID: String) async throws -> Bool
    /// Blocks `blockedID` for `userID` (again: no change).
    /// - Throws: ``MessagingError/invalidBlock(_:)`` when the user already blocks `max` others.
    func block(tenantID: String, userID: String, blockedID: String, now: Date, max: Int) async throws
    /// Lifts a block; false when there was none.
    func unblock(tenantID: String, userID: String, blockedID: String) async throws -> Bool
    /// The users `userID` blocks, most recent first.
    func blocked(tenantID: String, userID: String) async throws -> [BlockedUser]
    /// The user's unexpired messages.
    func inboxSize(tenantID: String, userID: String, now: Date) async throws -> InboxSize
    /// Deletes at most `limit` messages that expired before `cutoff`; returns how many.
    func purgeMessages(expiredBefore cutoff: Date, limit: Int) async throws -> Int
    /// Deletes every message of the tenant; returns how many.
    func purgeMessages(tenantID: String) async throws -> Int
    /// Seals at most `limit` contact rows stored before contacts were sealed (migration
    /// `v23-sealed-contacts`), in one transaction; returns how many (0: none left).
    func sealLegacyContacts(limit: Int) async throws -> Int
}

extension MessagingStore {
    /// ``deliver(_:keep:recording:)`` with no idempotency record.
    public func deliver(_ messages: [OutgoingMessage], keep: Int) async throws {
        try await deliver(messages, keep: keep, recording: nil)
    }
}

/// The store-independent parts of the messaging rows, shared by both engines.
public enum MessagingRows {
    /// The message as stored (JSON).
    public static func document(_ content: MessageContent) throws -> String {
        String(decoding: try encoder.encode(content), as: UTF8.self)
    }

    /// The message of a stored document.
    public static func content(_ document: String) throws -> MessageContent {
        try JSONDecoder().decode(MessageContent.self, from: Data(document.utf8))
    }

    /// The page of `rows` (asked for `limit` + 1 rows: one more means there is a next page).
    public static func page(
        _ rows: [(seq: Int64, item: InboxItem)], limit: Int, unread: Int
    ) -> InboxPage {
        let items = rows.prefix(limit)
        return InboxPage(
            items: items.map(\.item), unread: unread,
            next: rows.count > limit ? items.last.map { InboxCursor(before: $0.seq) } : nil)
    }

    /// The refusal of contacts naming `unknown` ids (at most 10 are named).
    public static func unknown(_ unknown: [String]) -> String {
        "no user of this tenant has the id " + unknown.prefix(10).map { "\"\($0.prefix(80))\"" }.joined(separator: ", ")
    }

    /// The refusal of one block too many.
    public static func tooManyBlocks(_ max: Int) -> String { "a user blocks at most \(max) others" }

    /// How each of `ids` stands, from the sender's contact rows that name users:
    /// (contact id, an enabled user, blocks the sender, the name they gave the sender).
    public static func reach(
        _ ids: [String], _ rows: [(id: String, live: Bool, blocked: Bool, theirName: String?)]
    ) -> [String: MessageReach.Recipient] {
        var recipients = Dictionary(uniqueKeysWithValues: ids.map { ($0, MessageReach.Recipient.notAContact) })
        for row in rows where row.live {
            recipients[row.id] = row.blocked ? .blocked : .reachable(senderName: row.theirName)
        }
        return recipients
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}
