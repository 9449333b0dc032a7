/// What contacts, messages and the inbox refuse (nothing is stored then).
public enum MessagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The contact list breaks a rule (``ContactRules``), or names ids that are no users of the tenant.
    case invalidContacts(String)
    /// More contacts than the tenant allows.
    case tooManyContacts(max: Int)
    /// The message breaks a rule (``MessageRules``).
    case invalidMessage(String)
    /// The user does not allow the permission for the mini app.
    case consentRequired(permission: String, miniAppID: String)
    /// The sender sent its allowance for the window; retry after the seconds given.
    case rateLimited(retryAfterSeconds: Int, limit: String)
    /// No message with this id in the user's inbox.
    case messageNotFound(id: String)
    /// The user has not blocked this user.
    case blockNotFound(userID: String)
    /// A block the rules refuse (malformed id, oneself, too many).
    case invalidBlock(String)
    /// The `Idempotency-Key` was used for another send (another mini app, recipients or message).
    case idempotencyConflict

    public var description: String {
        switch self {
        case .invalidContacts(let text), .invalidMessage(let text), .invalidBlock(let text): text
        case .tooManyContacts(let max): "a contact list holds at most \(max) contacts"
        case .consentRequired(let permission, let miniAppID):
            "the user does not allow \(permission) for mini app \(miniAppID.prefix(128))"
        case .rateLimited(_, let limit): "the sender reached \(limit); retry after the time in Retry-After"
        case .messageNotFound(let id): "no message \(id.prefix(64)) in this inbox"
        case .blockNotFound(let id): "user \(id.prefix(80)) is not blocked"
        case .idempotencyConflict: "this Idempotency-Key was used for a different message"
        }
    }
}
