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
    func enqueue(_ message: PushMessage, idempotencyKey: String?, requestHash: String) async throws -> EnqueueOutcome
    /// The status of a message the client `clientID` sent (nil: none), with at most
    /// `limit` deliveries listed.
    func status(tenantID: String, clientID: String, messageID: String, limit: Int) async throws -> PushMessageStatus?
    /// Deletes at most `limit` messages that expired before `cutoff`, with their deliveries;
    /// returns how many messages went.
    func purge(expiredBefore cutoff: Date, limit: Int) async throws -> Int
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
