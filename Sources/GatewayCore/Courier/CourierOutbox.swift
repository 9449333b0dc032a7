import Foundation

/// A courier message taken (leased) for one attempt, opened.
public struct ClaimedCourierMessage: Sendable, Equatable {
    public var message: CourierMessage
    /// Attempts made before this one.
    public var attempts: Int

    public init(message: CourierMessage, attempts: Int) {
        self.message = message
        self.attempts = attempts
    }
}

/// What an attempt came to.
public enum CourierOutcome: Sendable, Equatable {
    /// The relay or provider accepted it.
    case sent
    /// A transient failure: try again at this time (the lease ends now).
    case retry(at: Date, reason: String)
    /// Refused for good, or retries ran out: the dead letter.
    case failed(reason: String)
}

/// A claimed message and what its attempt came to.
public struct CourierResult: Sendable, Equatable {
    public var outcome: CourierOutcome
    public var claimed: ClaimedCourierMessage

    public init(_ outcome: CourierOutcome, of claimed: ClaimedCourierMessage) {
        self.outcome = outcome
        self.claimed = claimed
    }

    /// The state and next attempt time the outcome leaves, and the reason kept for operators.
    public func stored(now: Date) -> (state: CourierState, nextAttemptAt: Date, reason: String?) {
        switch outcome {
        case .sent: (.sent, now, nil)
        case .retry(let at, let reason): (.pending, at, reason)
        case .failed(let reason): (.failed, now, reason)
        }
    }
}

/// One message in a tenant's list, as operators see it: no text, the recipient masked.
public struct CourierMessageSummary: Sendable, Equatable {
    public var id: String
    public var channel: CourierMessage.Channel
    public var purpose: String
    /// ``CourierMessage/maskedRecipient``.
    public var recipient: String
    public var state: CourierState
    public var attempts: Int
    /// Why the last attempt did not succeed (`connection refused`, `550 …`), if it did not.
    public var lastError: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, channel: CourierMessage.Channel, purpose: String, recipient: String, state: CourierState,
        attempts: Int, lastError: String?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.channel = channel
        self.purpose = purpose
        self.recipient = recipient
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Where the next page starts: the creation time in milliseconds and the id.
    public var cursor: String { "\(StoreClock.milliseconds(createdAt)).\(id)" }
}

/// Messages waiting for one tenant × channel.
public struct CourierBacklogEntry: Sendable, Equatable {
    public var tenantID: String
    public var channel: CourierMessage.Channel
    public var pending: Int
    /// When the longest-waiting one became due.
    public var oldestDueAt: Date

    public init(tenantID: String, channel: CourierMessage.Channel, pending: Int, oldestDueAt: Date) {
        self.tenantID = tenantID
        self.channel = channel
        self.pending = pending
        self.oldestDueAt = oldestDueAt
    }
}

/// The durable courier outbox (issue 63 §4), one for e-mail and SMS, in the tenant database on
/// both engines beside push's (`courier_messages`). The recipient and the text (a code) are
/// sealed under the message. Claims lease due messages as push's do: a worker that dies leaves
/// its claims to run out and be taken again (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so
/// replicas claim disjoint rows). A message whose code expired ends `expired` at claim time.
public protocol CourierOutbox: Sendable {
    /// Queues `message` (its id unique in the tenant).
    func enqueue(_ message: CourierMessage) async throws
    /// Leases at most `limit` due messages until `now + lease`, oldest due first.
    func claim(limit: Int, lease: Duration, now: Date) async throws -> [ClaimedCourierMessage]
    /// Records what attempts came to, in one transaction; a message no longer pending is left.
    func record(_ results: [CourierResult], now: Date) async throws
    /// Hands claims back unattempted (a worker stopping): any worker may claim them at once.
    func release(_ claims: [ClaimedCourierMessage]) async throws
    /// The tenant's messages, newest first, older than `before` (a summary's cursor), in
    /// `state` when given, at most `limit`.
    func messages(tenantID: String, state: CourierState?, before: String?, limit: Int) async throws
        -> [CourierMessageSummary]
    /// Pending messages per tenant × channel.
    func backlog(now: Date) async throws -> [CourierBacklogEntry]
    /// Deletes at most `limit` messages created before `cutoff` that are no longer pending;
    /// returns how many went.
    func purge(createdBefore cutoff: Date, limit: Int) async throws -> Int
}

/// The cursor of a summary list: its creation time in milliseconds and its id (nil: not one).
public enum CourierCursor {
    public static func parse(_ cursor: String) -> (milliseconds: Int64, id: String)? {
        PushMessageSummary.parse(cursor: cursor)
    }
}
