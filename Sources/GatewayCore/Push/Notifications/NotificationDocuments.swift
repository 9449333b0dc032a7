import Foundation

/// A message's deliveries by state, every state present (0 when none).
public struct DeliveryCounts: Sendable, Codable, Equatable {
    public var pending: Int
    public var sent: Int
    public var skippedNoConsent: Int
    public var invalidToken: Int
    public var failed: Int
    public var expired: Int

    public init(_ counts: [DeliveryState: Int]) {
        pending = counts[.pending] ?? 0
        sent = counts[.sent] ?? 0
        skippedNoConsent = counts[.skippedNoConsent] ?? 0
        invalidToken = counts[.invalidToken] ?? 0
        failed = counts[.failed] ?? 0
        expired = counts[.expired] ?? 0
    }

    /// Every delivery, whatever its state.
    public var total: Int { pending + sent + skippedNoConsent + invalidToken + failed + expired }
}

/// A notification as operators list it: who sent it for which mini app, when, its funnel.
public struct NotificationDocument: Sendable, Codable, Equatable {
    public var id: String
    /// The sender: a client id, `operator:<name>` for an operator's send, `gatewayctl` on the database.
    public var sender: String
    public var miniAppID: String
    public var createdAt: Date
    public var counts: DeliveryCounts

    public init(_ summary: PushMessageSummary) {
        id = summary.id
        sender = summary.clientID
        miniAppID = summary.miniAppID
        createdAt = summary.createdAt
        counts = DeliveryCounts(summary.counts)
    }
}

/// One notification's status as operators read it: the funnel and the first deliveries.
public struct NotificationStatusDocument: Sendable, Codable, Equatable {
    public var id: String
    public var sender: String
    public var miniAppID: String
    public var createdAt: Date
    public var locales: [String]
    public var counts: DeliveryCounts
    public var devices: [Device]

    /// One device's copy.
    public struct Device: Sendable, Codable, Equatable {
        public var deviceID: String
        public var userID: String
        public var state: String
        public var attempts: Int
    }

    public init(_ status: PushMessageStatus) {
        id = status.message.id
        sender = status.message.clientID
        miniAppID = status.message.miniAppID
        createdAt = status.message.createdAt
        locales = status.message.content.texts.keys.sorted()
        counts = DeliveryCounts(status.counts)
        devices = status.deliveries.map {
            Device(deviceID: $0.deviceID, userID: $0.userID, state: $0.state.rawValue, attempts: $0.attempts)
        }
    }
}

/// What an operator's send answers (`gatewayctl push send --json`, the admin API).
public struct NotificationSendReport: Sendable, Codable, Equatable {
    public var id: String
    /// Deliveries queued (one per recipient device; skipped ones included).
    public var deliveries: Int
    /// Where they stand, when the sender waited for them.
    public var counts: [String: Int]?

    public init(id: String, deliveries: Int, counts: [String: Int]? = nil) {
        self.id = id
        self.deliveries = deliveries
        self.counts = counts
    }
}
