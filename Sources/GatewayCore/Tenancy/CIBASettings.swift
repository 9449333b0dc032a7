/// How the tenant's OpenID CIBA endpoint behaves (issue 50): what it tells a client about a
/// hint that names nobody, how fresh the host app's sign-in must be to approve without a
/// step-up, and where ping-mode notifications may go.
public struct CIBASettings: Sendable, Equatable, Codable {
    /// Answer `unknown_user_id` for a hint that names nobody. Off (the default), such a request
    /// is admitted like any other and never answered, so a client cannot probe for users.
    public var revealUnknownUsers: Bool
    /// How recent (seconds) the host app's sign-in must be to approve a request without the
    /// TOTP code or password (30-3600; default 300).
    public var recentSignInSeconds: Int
    /// Let ping-mode notifications reach private, loopback and link-local addresses. Off (the
    /// default), a notification endpoint that resolves to one is never called.
    public var allowPrivateNotificationEndpoints: Bool

    /// The default freshness of the host app's sign-in, and its bounds.
    public static let defaultRecentSignInSeconds = 300
    public static let recentSignInRange: ClosedRange<Int> = 30...3600

    public init(
        revealUnknownUsers: Bool = false, recentSignInSeconds: Int = CIBASettings.defaultRecentSignInSeconds,
        allowPrivateNotificationEndpoints: Bool = false
    ) {
        self.revealUnknownUsers = revealUnknownUsers
        self.recentSignInSeconds = recentSignInSeconds
        self.allowPrivateNotificationEndpoints = allowPrivateNotificationEndpoints
    }
}

extension CIBASettings {
    /// Missing members take their defaults, so a document may name only what it changes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = CIBASettings()
        self.init(
            revealUnknownUsers: try container.decodeIfPresent(Bool.self, forKey: .revealUnknownUsers)
                ?? defaults.revealUnknownUsers,
            recentSignInSeconds: try container.decodeIfPresent(Int.self, forKey: .recentSignInSeconds)
                ?? defaults.recentSignInSeconds,
            allowPrivateNotificationEndpoints: try container.decodeIfPresent(
                Bool.self, forKey: .allowPrivateNotificationEndpoints) ?? defaults.allowPrivateNotificationEndpoints)
    }
}
