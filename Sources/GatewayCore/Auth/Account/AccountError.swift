import Foundation

/// Why My account refused a request (issue 63 §7); GatewayServer maps each to a problem.
public enum AccountError: Error, Sendable, Equatable {
    /// The token's user is no local account of the tenant any more (erased, disabled).
    case notFound
    /// A value the rules refuse: the reason names it.
    case invalid(String)
    /// The code is wrong (`triesLeft` more before it is void), or no code is live for the value.
    case wrongCode(triesLeft: Int)
    /// Another account holds the e-mail address or phone number (said only to whoever proved
    /// they hold it, with the code).
    case identifierTaken
    /// Removing it would leave the account without a way in the tenant signs people in with.
    case identifierRequired
    /// The tenant sends nothing on this channel (no courier, or the number's country is not
    /// one it sends SMS to).
    case channelUnavailable
    /// Held back by a bound (codes per identifier, client or tenant; password attempts).
    case throttled(retryAfter: Duration)
    /// The change needs the current password or a sign-in younger than
    /// ``AccountService/recentSignIn``.
    case reauthenticationRequired
    /// The current password is wrong.
    case wrongPassword
    /// No live session of the user has this id.
    case sessionNotFound
    /// The account holds no passkey with this ID.
    case passkeyNotFound
    /// Removing it would leave the account without a way in: no password, no other passkey,
    /// and no code the tenant signs it in with.
    case lastFactor
}
