/// What sending a notification refuses.
public enum NotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message breaks a rule (``NotificationRules``); nothing was queued.
    case invalid(String)
    /// The sender is not registered for this mini app, or its token lacks `notifications:send`.
    case notAllowed(String)
    /// The `Idempotency-Key` was used before for a different message.
    case idempotencyConflict
    /// No message with this id was sent by this client.
    case notFound(messageID: String)
    /// The tenant queued its quota of messages this minute (``SendQuota``); nothing was queued.
    case quotaExceeded(retryAfterSeconds: Int)

    public var description: String {
        switch self {
        case .invalid(let message), .notAllowed(let message): message
        case .idempotencyConflict: "this Idempotency-Key was used for a different message"
        case .notFound(let id): "no message \(id.prefix(64)) was sent by this client"
        case .quotaExceeded: "this tenant sent its quota of notifications this minute; retry after the time in Retry-After"
        }
    }
}
