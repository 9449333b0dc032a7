import Foundation

/// The outbox: what senders queue and what delivery workers claim.
public typealias PushOutbox = PushOutboxStore & PushDeliveryQueue

/// One device's copy of a message, taken (leased) for one provider call, with what the call
/// needs: the device's token (opened), its locale, and the message.
public struct ClaimedDelivery: Sendable, Equatable {
    public var tenantID: String
    public var messageID: String
    public var deviceID: String
    public var userID: String
    public var provider: PushProvider
    public var token: String
    public var locale: String?
    public var apnsEnvironment: APNsEnvironment?
    /// Provider calls made before this one.
    public var attempts: Int
    public var message: PushMessage

    public init(
        tenantID: String, messageID: String, deviceID: String, userID: String, provider: PushProvider, token: String,
        locale: String?, apnsEnvironment: APNsEnvironment?, attempts: Int, message: PushMessage
    ) {
        self.tenantID = tenantID
        self.messageID = messageID
        self.deviceID = deviceID
        self.userID = userID
        self.provider = provider
        self.token = token
        self.locale = locale
        self.apnsEnvironment = apnsEnvironment
        self.attempts = attempts
        self.message = message
    }
}

/// What a provider call came to.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The provider accepted it.
    case sent
    /// The provider says the token is dead: the delivery ends and the device is removed.
    case invalidToken
    /// A transient failure: call again at this time (the lease ends now).
    case retry(at: Date)
    /// Retries ran out, or the provider refused the message for good.
    case failed
}

/// The outbox as delivery workers see it, on both engines. A claim leases due deliveries
/// (`pending`, due, not leased or lease run out) so no other worker takes them until the
/// lease ends: a worker that dies mid-batch leaves its claims to expire and be taken again
/// (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so replicas claim disjoint rows). Deliveries that
/// can no longer go out end at claim time instead: the message expired (`expired`), the user
/// withdrew consent or was disabled (`skipped_no_consent`), the device was removed (`invalid_token`).
public protocol PushDeliveryQueue: Sendable {
    /// Leases at most `limit` due deliveries until `now + lease`, oldest due first.
    func claim(limit: Int, lease: Duration, now: Date) async throws -> [ClaimedDelivery]
    /// Records what the calls of claimed deliveries came to, in one transaction; a delivery no
    /// longer pending (ended meanwhile) is left as it is. An invalid token removes its device.
    func record(_ results: [DeliveryResult], now: Date) async throws
    /// Pending deliveries per tenant × provider and when the longest-waiting became due.
    func backlog(now: Date) async throws -> [PushBacklogEntry]
    /// Hands claimed deliveries back unattempted (a worker shutting down): their leases end now,
    /// so any worker may claim them at once; attempts and due times stay as they were.
    func release(_ deliveries: [ClaimedDelivery]) async throws
}

extension PushDeliveryQueue {
    /// Records one delivery's outcome.
    public func record(_ outcome: DeliveryOutcome, of delivery: ClaimedDelivery, now: Date) async throws {
        try await record([DeliveryResult(outcome, of: delivery)], now: now)
    }
}

/// A claimed delivery and what its provider call came to.
public struct DeliveryResult: Sendable, Equatable {
    public var outcome: DeliveryOutcome
    public var delivery: ClaimedDelivery

    public init(_ outcome: DeliveryOutcome, of delivery: ClaimedDelivery) {
        self.outcome = outcome
        self.delivery = delivery
    }
}

/// Decides, for leased rows, which go to a provider and which end at claim time (shared by
/// both engines, so they end deliveries alike).
public enum PushClaimPlanner {
    /// A leased row with what the store read about it.
    public struct Leased: Sendable {
        public var tenantID: String
        public var messageID: String
        public var deviceID: String
        public var userID: String
        public var attempts: Int
        /// The message document (nil: gone).
        public var document: String?
        /// The device row (nil: removed).
        public var device: StoredDeviceRow?
        /// Whether the user allows notifications from the message's mini app now (a disabled
        /// user, `gatewayctl user disable`, counts as not allowing: silenced until re-enabled).
        public var consented: Bool

        public init(
            tenantID: String, messageID: String, deviceID: String, userID: String, attempts: Int, document: String?,
            device: StoredDeviceRow?, consented: Bool
        ) {
            self.tenantID = tenantID
            self.messageID = messageID
            self.deviceID = deviceID
            self.userID = userID
            self.attempts = attempts
            self.document = document
            self.device = device
            self.consented = consented
        }
    }

    /// The claimed deliveries, and the rows that end now with their final state.
    public static func plan(_ rows: [Leased], now: Date, sealer: SecretSealer) -> (
        claimed: [ClaimedDelivery], ended: [(Leased, DeliveryState)]
    ) {
        var claimed: [ClaimedDelivery] = []
        var ended: [(Leased, DeliveryState)] = []
        var messages: [String: PushMessage] = [:]
        for row in rows {
            let key = row.tenantID + "\u{0}" + row.messageID
            let message = messages[key] ?? row.document.flatMap { try? PushOutboxRows.message($0) }
            messages[key] = message
            guard let message, message.expiresAt > now else {
                ended.append((row, .expired))
                continue
            }
            guard row.consented else {
                ended.append((row, .skippedNoConsent))
                continue
            }
            guard let stored = row.device, stored.userID == row.userID,
                let device = try? stored.device(tenantID: row.tenantID, sealer: sealer)
            else {
                ended.append((row, .invalidToken))
                continue
            }
            claimed.append(
                ClaimedDelivery(
                    tenantID: row.tenantID, messageID: row.messageID, deviceID: row.deviceID, userID: row.userID,
                    provider: device.provider, token: device.token, locale: device.locale,
                    apnsEnvironment: device.apnsEnvironment, attempts: row.attempts, message: message))
        }
        return (claimed, ended)
    }

    /// The state and next attempt time a recorded outcome leaves.
    public static func result(of outcome: DeliveryOutcome, now: Date) -> (state: DeliveryState, nextAttemptAt: Date) {
        switch outcome {
        case .sent: (.sent, now)
        case .invalidToken: (.invalidToken, now)
        case .retry(let at): (.pending, at)
        case .failed: (.failed, now)
        }
    }
}
