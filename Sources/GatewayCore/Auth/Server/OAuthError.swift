/// An RFC 6749 error: `{error, error_description}` with an HTTP status.
public struct OAuthError: Error, Sendable, Equatable {
    public var code: String
    public var description: String
    public var status: Int

    public init(_ code: String, _ description: String, status: Int = 400) {
        self.code = code
        self.description = description
        self.status = status
    }

    public static func invalidRequest(_ d: String) -> OAuthError { OAuthError("invalid_request", d) }
    public static func invalidGrant(_ d: String) -> OAuthError { OAuthError("invalid_grant", d) }
    public static func invalidClient(_ d: String) -> OAuthError { OAuthError("invalid_client", d, status: 401) }
    public static func invalidScope(_ d: String) -> OAuthError { OAuthError("invalid_scope", d) }
    public static func unauthorizedClient(_ d: String) -> OAuthError { OAuthError("unauthorized_client", d) }
    public static func unsupportedGrantType(_ d: String) -> OAuthError { OAuthError("unsupported_grant_type", d) }
    public static func invalidDPoPProof(_ d: String) -> OAuthError { OAuthError("invalid_dpop_proof", d) }
    public static func accessDenied(_ d: String) -> OAuthError { OAuthError("access_denied", d) }
    /// The `auth_session` is unknown, expired, ended or bound elsewhere (First-Party Apps draft).
    public static func invalidSession(_ d: String) -> OAuthError { OAuthError("invalid_session", d) }
}
