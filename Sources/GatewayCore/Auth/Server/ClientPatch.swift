import Foundation

/// A change to some of an OAuth client's settings: what `gatewayctl client update`'s flags and
/// the admin API's `PATCH …/clients/{client}` (a JSON merge patch) say. Members are
/// ``OAuthClient``'s; an absent one stays, a list replaces the list.
public struct ClientPatch: Codable, Sendable, Equatable {
    public var redirectURIs: [String]?
    public var postLogoutRedirectURIs: [String]?
    public var allowedScopes: [String]?
    public var defaultScopes: [String]?
    public var requirePAR: Bool?
    public var dpopBound: Bool?
    public var accessTokenLifetimeSeconds: Int?
    public var refreshIdleLifetimeSeconds: Int?
    public var refreshAbsoluteLifetimeSeconds: Int?
    public var idTokenSigningAlgorithm: SigningKey.Algorithm?
    public var dpopNonceRequired: Bool?
    public var firstParty: Bool?
    public var grantTypes: [String]?
    public var miniApps: [String]?
    /// The public keys of a `private_key_jwt` client (a JWK Set).
    public var jwks: JSONValue?
    public var backchannelMode: BackchannelRequest.DeliveryMode?
    public var backchannelNotificationEndpoint: String?
    public var backchannelUserCodeRequired: Bool?

    public init() {}

    /// Copies every given member into `client` (validated by the store when it is written).
    public func apply(to client: inout OAuthClient) {
        if let jwks { client.jwks = jwks }
        if let redirectURIs { client.redirectURIs = redirectURIs }
        if let postLogoutRedirectURIs { client.postLogoutRedirectURIs = postLogoutRedirectURIs }
        if let allowedScopes { client.allowedScopes = allowedScopes }
        if let defaultScopes { client.defaultScopes = defaultScopes }
        if let requirePAR { client.requirePAR = requirePAR }
        if let dpopBound { client.dpopBound = dpopBound }
        if let accessTokenLifetimeSeconds { client.accessTokenLifetimeSeconds = accessTokenLifetimeSeconds }
        if let refreshIdleLifetimeSeconds { client.refreshIdleLifetimeSeconds = refreshIdleLifetimeSeconds }
        if let refreshAbsoluteLifetimeSeconds { client.refreshAbsoluteLifetimeSeconds = refreshAbsoluteLifetimeSeconds }
        if let idTokenSigningAlgorithm { client.idTokenSigningAlgorithm = idTokenSigningAlgorithm }
        if let grantTypes { client.grantTypes = grantTypes }
        if let miniApps { client.miniApps = miniApps }
        if let dpopNonceRequired { client.dpopNonceRequired = dpopNonceRequired }
        if let firstParty { client.firstParty = firstParty }
        // Sign-in requests and the account are the host app's alone: a client that stops being
        // first-party loses them.
        if firstParty == false {
            client.allowedScopes.removeAll(where: APIScope.firstPartyOnly.contains)
            client.defaultScopes?.removeAll(where: APIScope.firstPartyOnly.contains)
        }
        if let backchannelMode { client.backchannelMode = backchannelMode }
        if let backchannelNotificationEndpoint {
            client.backchannelNotificationEndpoint =
                backchannelNotificationEndpoint.isEmpty ? nil : backchannelNotificationEndpoint
        }
        if let backchannelUserCodeRequired { client.backchannelUserCodeRequired = backchannelUserCodeRequired }
    }

    /// A client registered now with this patch's settings; without ``defaultScopes`` it holds
    /// ``OAuthClient/newDefaultScopes(firstParty:)``.
    public func registering(tenantID: String, clientID: String, confidential: Bool) -> OAuthClient {
        var client = OAuthClient(tenantID: tenantID, clientID: clientID, confidential: confidential, redirectURIs: [])
        apply(to: &client)
        client.registerDefaultScopes(defaultScopes)
        return client
    }

    /// Whether the patch names no member.
    public var isEmpty: Bool { self == ClientPatch() }
}
