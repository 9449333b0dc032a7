import Foundation

/// Contacts, messages between users and their inboxes (the server half of the SDKs'
/// `getContacts` and `sendMessageTo…` calls): decides who may read and send, checks
/// messages and limits, and hands deliveries to the ``MessagingStore`` (inbox and push
/// outbox in one transaction).
public struct MessagingService: Sendable {
    /// The knobs operators set.
    public struct Settings: Sendable, Equatable {
        /// Contacts per user.
        public var maxContacts: Int
        /// How long a message stays in an inbox.
        public var retention: Duration
        /// Messages an inbox keeps (the oldest beyond it are dropped).
        public var inboxKeep: Int
        /// Users one user may block.
        public var maxBlocked: Int
        public var limits: MessageLimits

        public init(
            maxContacts: Int = ContactRules.defaultMaxContacts, retention: Duration = .seconds(30 * 86_400),
            inboxKeep: Int = 1_000, maxBlocked: Int = 1_000, limits: MessageLimits = .init()
        ) {
            self.maxContacts = maxContacts
            self.retention = retention
            self.inboxKeep = inboxKeep
            self.maxBlocked = maxBlocked
            self.limits = limits
        }
    }

    /// The client id the outbox records for pushes of user messages (no OAuth client has a colon).
    public static let pushSender = "gateway:messages"
    /// The push title when the sender has no name.
    public static let untitled = "New message"
    /// Inbox page sizes.
    public static let defaultPageSize = 20, maxPageSize = 100

    private let store: any MessagingStore
    private let consents: any ConsentStore
    private let counters: MessageCounters
    private let settings: Settings
    private let clock: WallClock

    public init(
        store: any MessagingStore, consents: any ConsentStore, cache: any Cache, settings: Settings = .init(),
        clock: WallClock = .system
    ) {
        self.store = store
        self.consents = consents
        self.counters = MessageCounters(cache: cache, limits: settings.limits, clock: clock)
        self.settings = settings
        self.clock = clock
    }

    // MARK: Contacts

    /// Replaces the user's contacts with `uploads` (all or nothing).
    /// - Throws: ``MessagingError/tooManyContacts(max:)``, ``MessagingError/invalidContacts(_:)``.
    public func replaceContacts(_ uploads: [ContactUpload], tenantID: String, userID: String) async throws -> [Contact] {
        let contacts = try ContactRules.contacts(uploads, of: userID, max: settings.maxContacts)
        try await store.replaceContacts(contacts, tenantID: tenantID, userID: userID)
        return contacts
    }

    /// The user's contacts, for the host app.
    public func contacts(tenantID: String, userID: String) async throws -> [Contact] {
        try await store.contacts(tenantID: tenantID, userID: userID)
    }

    /// The user's contacts, for a mini app the user allows `CONTACT_LIST`.
    /// - Throws: ``MessagingError/consentRequired(permission:miniAppID:)``.
    public func contacts(for owner: UserMiniAppKey) async throws -> [Contact] {
        try await requireConsent(.contactList, owner)
        return try await store.contacts(tenantID: owner.tenantID, userID: owner.userID)
    }

    // MARK: Sending

    /// One recipient's result, as the contract names them.
    public enum Outcome: String, Sendable, Equatable, Codable {
        case sent
        case notAContact = "not_a_contact"
        case blocked
        case rateLimited = "rate_limited"
    }

    /// Sends `content` from the user of `owner` through its mini app to the contacts `to`
    /// (repeats count once): each recipient that is a contact and a user of the tenant, has
    /// not blocked the sender and is under their hourly limit gets it in their inbox and a
    /// push where they allow notifications from the mini app.
    ///
    /// With `idempotencyKey`, a send of the same user with the same key and request within a
    /// day answers what the first one did and delivers nothing again; another request with the
    /// key is refused (``MessagingError/idempotencyConflict``).
    /// - Returns: each distinct id with its outcome, in the order given.
    /// - Throws: ``MessagingError/invalidMessage(_:)``, ``MessagingError/consentRequired(permission:miniAppID:)``,
    ///   ``MessagingError/rateLimited(retryAfterSeconds:limit:)``, ``MessagingError/idempotencyConflict``
    ///   (then nothing is sent).
    public func send(
        _ content: MessageContent, to ids: [String], from owner: UserMiniAppKey, idempotencyKey: String? = nil
    ) async throws -> [(id: String, outcome: Outcome)] {
        try MessageRules.check(content, to: ids)
        let requestHash = try MessageSendRecord.hash(miniAppID: owner.miniAppID, to: ids, content: content)
        if let idempotencyKey, let answered = try await earlier(idempotencyKey, requestHash, owner) { return answered }
        try await requireConsent(.sendMessage, owner)
        var seen: Set<String> = []
        let distinct = ids.filter { seen.insert($0).inserted }
        let reach = try await store.reach(tenantID: owner.tenantID, senderID: owner.userID, ids: distinct)
        let reachable = distinct.filter { if case .reachable = reach.recipients[$0] { true } else { false } }
        if !reachable.isEmpty {
            try await counters.admitSender(tenantID: owner.tenantID, senderID: owner.userID, count: reachable.count)
        }
        let now = StoreClock.date(StoreClock.milliseconds(clock.now()))
        var outcomes: [(id: String, outcome: Outcome)] = []
        var outgoing: [OutgoingMessage] = []
        for id in distinct {
            switch reach.recipients[id] ?? .notAContact {
            case .notAContact: outcomes.append((id, .notAContact))
            case .blocked: outcomes.append((id, .blocked))
            case .reachable(let name):
                guard await counters.admitRecipient(tenantID: owner.tenantID, recipientID: id) else {
                    outcomes.append((id, .rateLimited))
                    continue
                }
                outgoing.append(message(content, to: id, from: owner, senderName: name ?? reach.senderProfileName, at: now))
                outcomes.append((id, .sent))
            }
        }
        let record = idempotencyKey.map {
            MessageSendRecord(
                tenantID: owner.tenantID, senderID: owner.userID, key: $0, requestHash: requestHash,
                outcomes: outcomes.map { .init(id: $0.id, outcome: $0.outcome) }, createdAt: now)
        }
        do {
            if !outgoing.isEmpty || record != nil {
                try await store.deliver(outgoing, keep: settings.inboxKeep, recording: record)
            }
        } catch is MessageSendKeyTaken {
            // A concurrent retry with the same key won: its answer is this one's (nothing of ours stored).
            if let idempotencyKey, let answered = try await earlier(idempotencyKey, requestHash, owner) {
                return answered
            }
            throw MessagingError.idempotencyConflict
        }
        return outcomes
    }

    /// What an earlier send with `key` answered; nil when there was none within a day.
    /// - Throws: ``MessagingError/idempotencyConflict`` when it asked for something else.
    private func earlier(
        _ key: String, _ requestHash: String, _ owner: UserMiniAppKey
    ) async throws -> [(id: String, outcome: Outcome)]? {
        let since = clock.now().addingTimeInterval(-MessageSendRecord.lifetime)
        guard
            let record = try await store.sendRecord(
                tenantID: owner.tenantID, senderID: owner.userID, key: key, since: since)
        else { return nil }
        guard record.requestHash == requestHash else { throw MessagingError.idempotencyConflict }
        return record.outcomes.map { ($0.id, $0.outcome) }
    }

    /// The inbox row and push of one recipient's copy.
    private func message(
        _ content: MessageContent, to recipientID: String, from owner: UserMiniAppKey, senderName: String?, at now: Date
    ) -> OutgoingMessage {
        let item = InboxItem(
            id: "im_" + Base64URL.random(byteCount: 16), senderID: owner.userID, senderName: senderName,
            miniAppID: owner.miniAppID, content: content, read: false, createdAt: now)
        let push = PushMessage(
            id: "msg_" + Base64URL.random(byteCount: 16), tenantID: owner.tenantID, clientID: Self.pushSender,
            content: PushContent(
                miniAppID: owner.miniAppID, recipients: .users([recipientID]),
                texts: ["default": PushText(title: String((senderName ?? Self.untitled).prefix(NotificationRules.maxTitle)), body: content.text)],
                data: .object(["type": .string("message"), "inboxId": .string(item.id), "miniAppId": .string(owner.miniAppID)])),
            createdAt: now)
        return OutgoingMessage(
            tenantID: owner.tenantID, recipientID: recipientID, item: item, expiresAt: now + TimeInterval(settings.retention.wholeMilliseconds) / 1000,
            push: push)
    }

    // MARK: Inbox

    /// A page of the user's inbox, newest first.
    public func inbox(tenantID: String, userID: String, cursor: InboxCursor?, limit: Int?) async throws -> InboxPage {
        let size = min(max(limit ?? Self.defaultPageSize, 1), Self.maxPageSize)
        return try await store.inbox(tenantID: tenantID, userID: userID, before: cursor, limit: size, now: clock.now())
    }

    /// - Throws: ``MessagingError/messageNotFound(id:)``.
    public func markRead(tenantID: String, userID: String, messageID: String) async throws {
        guard try await store.markRead(tenantID: tenantID, userID: userID, messageID: messageID) else {
            throw MessagingError.messageNotFound(id: messageID)
        }
    }

    /// - Throws: ``MessagingError/messageNotFound(id:)``.
    public func deleteMessage(tenantID: String, userID: String, messageID: String) async throws {
        guard try await store.deleteMessage(tenantID: tenantID, userID: userID, messageID: messageID) else {
            throw MessagingError.messageNotFound(id: messageID)
        }
    }

    /// The user's unexpired messages (for operators).
    public func inboxSize(tenantID: String, userID: String) async throws -> InboxSize {
        try await store.inboxSize(tenantID: tenantID, userID: userID, now: clock.now())
    }

    // MARK: Blocks

    /// Blocks `blockedID` for the user: their messages no longer arrive.
    /// - Throws: ``MessagingError/invalidBlock(_:)``.
    public func block(_ blockedID: String, tenantID: String, userID: String) async throws {
        guard ReleasePolicyRules.isUserID(blockedID) else { throw MessagingError.invalidBlock("malformed user id") }
        guard blockedID != userID else { throw MessagingError.invalidBlock("a user cannot block themselves") }
        try await store.block(
            tenantID: tenantID, userID: userID, blockedID: blockedID, now: clock.now(), max: settings.maxBlocked)
    }

    /// - Throws: ``MessagingError/blockNotFound(userID:)``.
    public func unblock(_ blockedID: String, tenantID: String, userID: String) async throws {
        guard try await store.unblock(tenantID: tenantID, userID: userID, blockedID: blockedID) else {
            throw MessagingError.blockNotFound(userID: blockedID)
        }
    }

    public func blocked(tenantID: String, userID: String) async throws -> [BlockedUser] {
        try await store.blocked(tenantID: tenantID, userID: userID)
    }

    private func requireConsent(_ permission: CustomPermission, _ owner: UserMiniAppKey) async throws {
        guard try await consents.consents(of: owner).status(of: permission.rawValue) == .allowed else {
            throw MessagingError.consentRequired(permission: permission.rawValue, miniAppID: owner.miniAppID)
        }
    }
}
