import Foundation

/// A signed-in user on the consent page of a third-party client: everything the finished
/// authorization needs, so the answer carries only the session and allow or deny.
public struct PendingConsent: Sendable, Codable, Equatable {
    public var tenantID: String
    public var clientID: String
    public var subject: String
    /// The authorization request as validated (a pushed one resolved), its redirect URI and
    /// granted scope: the answer finishes it without the request being sent again.
    public var request: AuthorizationRequest
    public var redirectURI: String
    public var scope: String
    /// The pushed request's `request_uri`, taken (used up) when the user allows.
    public var requestURI: String?
    /// The browser's CSRF cookie value: only that browser may answer.
    public var browser: String
    /// How the user signed in (`amr`) and when (`auth_time`).
    public var amr: [String]
    public var authTime: Int64
    /// True when the sign-in was typed on this page (a new single sign-on session starts once
    /// the user allows); false when it came from the browser's session or an identity provider.
    public var startsSession: Bool
}

/// Pending consents in the shared ``Cache`` (any replica takes the answer) under the hash of
/// their session value (256 random bits). A consent page lives 10 minutes and is answered once.
public struct PendingConsents: Sendable {
    /// How long the user has to answer.
    public static let lifetime: Duration = .seconds(600)
    private let entries: HashedTokenEntries<PendingConsent>

    public init(cache: any Cache) {
        entries = HashedTokenEntries(cache: cache, prefix: "oauth:consent", lifetime: Self.lifetime)
    }

    /// Stores `consent`; returns its new session value.
    public func start(_ consent: PendingConsent) async throws -> String {
        try await entries.start(consent, tenantID: consent.tenantID)
    }

    /// Takes the consent once; nil when unknown, expired or already answered.
    public func take(_ token: String, tenantID: String) async throws -> PendingConsent? {
        try await entries.take(token, tenantID: tenantID)
    }
}
