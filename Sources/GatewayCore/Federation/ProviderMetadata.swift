import Foundation

/// The parts of an OpenID Provider's discovery document (OpenID Connect Discovery 1.0 §3)
/// the gateway uses as a relying party and as a verifier of the provider's tokens.
public struct ProviderMetadata: Sendable, Equatable, Codable {
    public var issuer: String
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var jwksURI: String
    public var userinfoEndpoint: String?
    public var introspectionEndpoint: String?
    public var codeChallengeMethodsSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
    }

    public init(
        issuer: String, authorizationEndpoint: String?, tokenEndpoint: String?, jwksURI: String,
        userinfoEndpoint: String? = nil,
        introspectionEndpoint: String? = nil, codeChallengeMethodsSupported: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.introspectionEndpoint = introspectionEndpoint
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
    }

    /// `<issuer>/.well-known/openid-configuration` (Discovery §4: appended to the issuer's path).
    public static func discoveryURL(issuer: String) -> String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }
}

/// Why a federation step failed. The server maps these: at the sign-in callback to an RFC
/// 6749 error on the client's redirect URI (or an error page), on the API to 401.
public enum FederationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider could not be reached or answered 5xx / garbage (its breaker may be open).
    case providerUnavailable(UpstreamError)
    /// The provider's discovery document does not match its configuration (another issuer,
    /// no authorization or token endpoint, no S256): an operator must fix it.
    case providerMisconfigured(String)
    /// The provider refused the code exchange (4xx) or sent the user back with an error.
    case providerRefused(String)
    /// The upstream ID token or access token failed validation.
    case tokenRejected(String)
    /// Unknown, expired or already used `state`, or another browser's.
    case invalidState
    /// No identity provider of that alias in the tenant.
    case unknownProvider(String)
    /// The upstream user may not sign in here (the linked local user is disabled).
    case userDisabled

    public var description: String {
        switch self {
        case .providerUnavailable(let error): "the identity provider is unavailable (\(error))"
        case .providerMisconfigured(let reason): "the identity provider is misconfigured: \(reason)"
        case .providerRefused(let reason): "the identity provider refused the sign-in: \(reason)"
        case .tokenRejected(let reason): "the identity provider's token was rejected: \(reason)"
        case .invalidState: "the sign-in expired or was started in another browser; start again"
        case .unknownProvider(let alias): "no identity provider '\(alias)' in this tenant"
        case .userDisabled: "this account is disabled"
        }
    }
}
