/// A token revocation a store recorded inside a larger transaction (a recovery ending every
/// session), handed back so this process can announce it at once with
/// ``RevokedTokens/announce(_:)`` instead of waiting for ``RevocationSync`` to poll it.
public struct RecordedRevocation: Sendable, Hashable {
    /// The revocation key (``RevokedTokens/key(_:_:)``).
    public var key: String
    /// Until when it is kept (Unix milliseconds): the token's expiry plus the clock skew.
    public var untilMS: Int64

    public init(key: String, untilMS: Int64) {
        self.key = key
        self.untilMS = untilMS
    }
}
