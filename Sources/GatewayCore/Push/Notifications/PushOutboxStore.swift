import Foundation

/// Where each device's copy of a message stands.
public enum DeliveryState: String, Sendable, Equatable, Codable, CaseIterable {
    /// Waiting for (or between) provider calls.
    case pending
    /// The provider accepted it.
    case sent
    /// The user did not allow notifications from the mini app.
    case skippedNoConsent = "skipped_no_consent"
    /// The provider said the token is dead; the device was removed.
    case invalidToken = "invalid_token"
    /// Retries ran out.
    case failed
    /// Its time to live passed before a provider took it.
    case expired
}

/// What ``PushOutboxStore/enqueue(_:idempotencyKey:requestHash:)`` did.
public enum EnqueueOutcome: Sendable, Equatable {
    /// Queued now: the message and one delivery per recipient device.
    case queued(messageID: String, deliveries: Int)
    /// The same `Idempotency-Key` and request came before: that message, nothing new.
    case replayed(messageID: String)
}

/// A message's deliveries, for its sender.
public struct PushMessageStatus: Sendable, Equatable {
    public var message: PushMessage
    /// Deliveries by state.
    public var counts: [DeliveryState: Int]
    /// The first deliveries (by device id), at most the limit asked for.
    public var deliveries: [Delivery]

    public struct Delivery: Sendable, Equatable {
        public var deviceID: String
        public var userID: String
        public var state: DeliveryState
        public var attempts: Int

        public init(deviceID: String, userID: String, state: DeliveryState, attempts: Int) {
            self.deviceID = deviceID
            self.userID = userID
            self.state = state
            self.attempts = attempts
        }
    }

    public init(message: PushMessage, counts: [DeliveryState: Int], deliveries: [Delivery]) {
        self.message = message
        self.counts = counts
        self.deliveries = deliveries
    }
}

/// The durable outbox of push messages, in the tenant database on both engines. A message
/// and its deliveries (one per recipient device: `pending` where the user allows
/// `gateway.user.NOTIFICATIONS` for the mini app, `skipped_no_consent` otherwise) are
/// written in one transaction.
public protocol PushOutboxStore: Sendable {
    /// Queues `message` unless `idempotencyKey` (per sender) was used before: then the
    /// earlier message when `requestHash` matches, else
    /// ``NotificationError/idempotencyConflict``.
    /// A message queued now has `trail(messageID, deliveries)` appended to the operators' audit
    /// trail in the same transaction (a replay appends nothing).
    func enqueue(
        _ message: PushMessage, idempotencyKey: String?, requestHash: String,
        trail: (@Sendable (_ messageID: String, _ deliveries: Int) -> AuditDraft)?
    ) async throws -> EnqueueOutcome
    /// The status of a message the client `clientID` sent (nil: any sender of the tenant; nil
    /// answer: none), with at most `limit` deliveries listed.
    func status(tenantID: String, clientID: String?, messageID: String, limit: Int) async throws -> PushMessageStatus?
    /// The tenant's messages, newest first, those older than `before` (a summary's ``PushMessageSummary/cursor``),
    /// at most `limit`, each with its deliveries counted by state.
    func messages(tenantID: String, before: String?, limit: Int) async throws -> [PushMessageSummary]
    /// Deliveries still waiting for a provider (`pending`) in each of `tenantIDs` (tenants
    /// without any are left out): the console's push backlog.
    func pendingDeliveries(tenantIDs: [String]) async throws -> [String: Int]
    /// One message's deliveries counted by provider and state (the console's funnel by provider).
    func countsByProvider(tenantID: String, messageID: String) async throws -> [PushProvider: [DeliveryState: Int]]
    /// Deletes at most `limit` messages that expired before `cutoff`, with their deliveries;
    /// returns how many messages went.
    func purge(expiredBefore cutoff: Date, limit: Int) async throws -> Int
}

extension PushOutboxStore {
    /// Queues `message` without an audit record (senders' messages are not operator writes).
    public func enqueue(_ message: PushMessage, idempotencyKey: String?, requestHash: String) async throws -> EnqueueOutcome {
        try await enqueue(message, idempotencyKey: idempotencyKey, requestHash: requestHash, trail: nil)
    }
}

/// One message in a tenant's list: who sent it for which mini app, when, and its deliveries
/// by state.
public struct PushMessageSummary: Sendable, Equatable {
    public var id: String
    public var clientID: String
    public var miniAppID: String
    public var createdAt: Date
    public var counts: [DeliveryState: Int]

    public init(id: String, clientID: String, miniAppID: String, createdAt: Date, counts: [DeliveryState: Int]) {
        self.id = id
        self.clientID = clientID
        self.miniAppID = miniAppID
        self.createdAt = createdAt
        self.counts = counts
    }

    /// Where the next page starts: its creation time in milliseconds and its id.
    public var cursor: String { "\(StoreClock.milliseconds(createdAt)).\(id)" }

    /// The time and id of a cursor (nil: not one).
    public static func parse(cursor: String) -> (milliseconds: Int64, id: String)? {
        let parts = cursor.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let ms = Int64(parts[0]), ms >= 0, !parts[1].isEmpty else { return nil }
        return (ms, String(parts[1]))
    }
}

/// Builds the store-independent parts of the outbox rows.
public enum PushOutboxRows {
    /// The message as stored (JSON).
    public static func document(_ message: PushMessage) throws -> String {
        String(decoding: try encoder.encode(message), as: UTF8.self)
    }

    /// The message of a stored document.
    public static func message(_ document: String) throws -> PushMessage {
        try decoder.decode(PushMessage.self, from: Data(document.utf8))
    }

    /// The named recipients as a JSON array (nil for everyone who consented).
    public static func userIDs(_ recipients: PushRecipients) throws -> String? {
        guard case .users(let users) = recipients else { return nil }
        return String(decoding: try JSONEncoder().encode(users), as: UTF8.self)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()
}

/// Builds a ``PushMessageStatus`` from what either engine read.
public enum PushOutboxStatus {
    /// Rows of (provider, state, count) as a table; unknown names are left out.
    public static func byProvider(_ rows: [(String, String, Int)]) -> [PushProvider: [DeliveryState: Int]] {
        var table: [PushProvider: [DeliveryState: Int]] = [:]
        for (provider, state, count) in rows {
            guard let provider = PushProvider(rawValue: provider), let state = DeliveryState(rawValue: state) else {
                continue
            }
            table[provider, default: [:]][state] = count
        }
        return table
    }

    public static func make(
        document: String, counts: [(String, Int)], deliveries: [(String, String, String, Int)]
    ) throws -> PushMessageStatus {
        var byState: [DeliveryState: Int] = [:]
        for (state, count) in counts {
            if let known = DeliveryState(rawValue: state) { byState[known, default: 0] += count }
        }
        return PushMessageStatus(
            message: try PushOutboxRows.message(document), counts: byState,
            deliveries: deliveries.compactMap { device, user, state, attempts in
                DeliveryState(rawValue: state).map {
                    .init(deviceID: device, userID: user, state: $0, attempts: attempts)
                }
            })
    }
}
