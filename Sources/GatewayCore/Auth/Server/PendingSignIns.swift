import Crypto
import Foundation

/// A sign-in whose password was right and that waits for the user's second factor: the
/// state behind an `auth_session` of the authorization challenge endpoint, or behind the
/// sign-in form's one-time-code step. Everything the finished sign-in needs is here, so the
/// continuation carries only the session and the new factor.
public struct PendingSignIn: Sendable, Codable, Equatable {
    public var tenantID: String
    public var clientID: String
    public var username: String
    /// nil for the challenge endpoint (no redirect happens).
    public var redirectURI: String?
    public var scope: String
    public var codeChallenge: String
    public var nonce: String?
    /// What the session is bound to: the DPoP key that started it (challenge endpoint), or
    /// the browser's CSRF cookie (form). A continuation without the same binding is refused.
    public var binding: Binding

    public enum Binding: Sendable, Codable, Equatable {
        /// The challenge endpoint; the DPoP key's thumbprint when the request carried a proof.
        case challenge(dpopJKT: String?)
        /// The sign-in form of one browser.
        case browser(String)
        /// A journey (its id): the second factor of a journey's sign-in.
        case journey(String)
    }

    public init(
        tenantID: String, clientID: String, username: String, redirectURI: String?, scope: String,
        codeChallenge: String, nonce: String?, binding: Binding
    ) {
        self.tenantID = tenantID
        self.clientID = clientID
        self.username = username
        self.redirectURI = redirectURI
        self.scope = scope
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.binding = binding
    }
}

/// Pending sign-ins in the shared ``Cache`` (every replica can continue one), under the
/// hash of their `auth_session` (256 random bits; the value itself is never stored). A
/// session lives 5 minutes and survives at most ``maxFailures`` wrong codes.
public struct PendingSignIns: Sendable {
    /// How long the user has to enter the second factor.
    public static let lifetime: Duration = .seconds(300)
    /// Wrong codes after which the session ends (the user starts again with the password).
    public static let maxFailures: Int64 = 5
    let cache: any Cache
    private let entries: HashedTokenEntries<PendingSignIn>

    public init(cache: any Cache) {
        self.cache = cache
        entries = HashedTokenEntries(cache: cache, prefix: "oauth:pending", lifetime: Self.lifetime)
    }

    /// Stores `signIn`; returns its new `auth_session` value.
    public func start(_ signIn: PendingSignIn) async throws -> String {
        try await entries.start(signIn, tenantID: signIn.tenantID)
    }

    /// The pending sign-in, nil when unknown, expired, finished or ended by failures.
    public func find(_ token: String, tenantID: String) async throws -> PendingSignIn? {
        try await entries.find(token, tenantID: tenantID)
    }

    /// Takes the sign-in once (the code it leads to is issued once); nil when someone else did.
    public func finish(_ token: String, tenantID: String) async throws -> PendingSignIn? {
        _ = try await cache.delete([entries.key(token, tenantID: tenantID) + ":failures"])
        return try await entries.take(token, tenantID: tenantID)
    }

    /// Counts a wrong code (atomically, so parallel guesses count too); true when the
    /// session is still open, false when that was the last allowed failure (it is ended).
    public func recordFailure(_ token: String, tenantID: String) async throws -> Bool {
        let key = entries.key(token, tenantID: tenantID)
        let failures = try await cache.increment(key + ":failures", by: 1, ttl: Self.lifetime)
        guard failures < Self.maxFailures else {
            _ = try await cache.delete([key, key + ":failures"])
            return false
        }
        return true
    }
}
