import Foundation

/// A registered OAuth client of one tenant.
public struct OAuthClient: Sendable, Codable, Equatable {
    public var tenantID: String
    public var clientID: String
    /// Confidential clients authenticate with a secret (stored hashed, shown once).
    public var confidential: Bool
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    /// Optional scopes: granted when the request asks for them (`openid` is always allowed).
    public var allowedScopes: [String]
    /// Default scopes: granted whether or not the request names them (Keycloak's client
    /// scopes). A new client holds ``APIScope/identity``, a first-party one also
    /// ``APIScope/hostApp``; nil: none (migration `v35-client-default-scopes` gave every
    /// client registered before scopes the host app's surface its tokens could use then).
    public var defaultScopes: [String]?
    /// Refuse authorization requests that did not come through PAR.
    public var requirePAR: Bool
    /// Bind tokens to a DPoP key (RFC 9449): the token endpoint demands a proof.
    public var dpopBound: Bool
    public var accessTokenLifetimeSeconds: Int
    public var refreshIdleLifetimeSeconds: Int
    public var refreshAbsoluteLifetimeSeconds: Int
    /// `id_token_signed_response_alg`: nil means RS256 (OpenID Connect's default); ES256 on
    /// request (`gatewayctl client add --id-token-alg ES256`).
    public var idTokenSigningAlgorithm: SigningKey.Algorithm?

    /// The algorithm of this client's ID tokens.
    public var idTokenAlgorithm: SigningKey.Algorithm { idTokenSigningAlgorithm ?? .rs256 }
    /// Require a server nonce in this client's DPoP proofs at the token endpoint (RFC 9449 §8);
    /// nil or false: not required.
    public var dpopNonceRequired: Bool?

    /// A first-party app (`gatewayctl client add --first-party`): it may collect the user's
    /// credentials itself at the authorization challenge endpoint. nil or false: browser only.
    public var firstParty: Bool?

    /// Whether the client may use the authorization challenge endpoint.
    public var isFirstParty: Bool { firstParty == true }

    /// `grant_types` the token endpoint accepts from this client; nil means both
    /// `authorization_code` and `refresh_token`.
    public var grantTypes: [String]?

    /// The mini apps a sender (client-credentials) client sends for (`--miniapp`).
    public var miniApps: [String]?

    /// The public keys of a confidential client that authenticates with `private_key_jwt`
    /// (RFC 7523 §2.2): a JWK Set (`{"keys": [...]}`, EC P-256 or RSA ≥ 2048 bits, at most 10).
    /// Such a client authenticates with signed assertions only, never a secret.
    public var jwks: JSONValue?
    /// How a client registered for backchannel authentication (CIBA) learns the answer:
    /// poll or ping; nil for every other client.
    public var backchannelMode: BackchannelRequest.DeliveryMode?
    /// Ping mode's `backchannel_client_notification_endpoint`: https (http on loopback only).
    public var backchannelNotificationEndpoint: String?
    /// The client must send the user's `user_code` (the user's current TOTP code).
    public var backchannelUserCodeRequired: Bool?

    /// Bumped by the store on every change (the admin API's `ETag`); nil for a client
    /// registered before revisions were kept, read as 1.
    public var revision: Int64?

    /// The client's revision (1 until it first changes).
    public var currentRevision: Int64 { revision ?? 1 }

    /// The keys of ``jwks`` that can verify assertions, with their `kid`s.
    public var assertionKeys: [(kid: String?, key: VerificationKey)] {
        JWK.assertionKeys(jwks)
    }

    /// Whether the client authenticates with `private_key_jwt`.
    public var usesPrivateKeyJWT: Bool { jwks != nil }

    /// The grant types the token endpoint knows.
    public static let knownGrantTypes = ["authorization_code", "refresh_token"]
    /// Every grant a client may be registered for; token exchange (RFC 8693) and client
    /// credentials (senders) only on request.
    public static let registrableGrantTypes =
        knownGrantTypes + [TokenExchange.grantType, ClientCredentials.grantType, BackchannelRules.grantType]

    /// A sender: registered for the client-credentials grant only.
    public var isSender: Bool { grantTypes == [ClientCredentials.grantType] }

    /// Whether the client may use `grantType` at the token endpoint.
    public func allows(grantType: String) -> Bool {
        (grantTypes ?? Self.knownGrantTypes).contains(grantType)
    }

    public init(
        tenantID: String, clientID: String, confidential: Bool = false, redirectURIs: [String],
        postLogoutRedirectURIs: [String] = [],
        allowedScopes: [String] = ["openid", "profile", "email", "offline_access"],
        requirePAR: Bool = false, dpopBound: Bool = false, accessTokenLifetimeSeconds: Int = 600,
        refreshIdleLifetimeSeconds: Int = 7 * 86_400, refreshAbsoluteLifetimeSeconds: Int = 30 * 86_400,
        idTokenSigningAlgorithm: SigningKey.Algorithm? = nil
    ) {
        self.idTokenSigningAlgorithm = idTokenSigningAlgorithm
        self.tenantID = tenantID
        self.clientID = clientID
        self.confidential = confidential
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.allowedScopes = allowedScopes
        self.requirePAR = requirePAR
        self.dpopBound = dpopBound
        self.accessTokenLifetimeSeconds = accessTokenLifetimeSeconds
        self.refreshIdleLifetimeSeconds = refreshIdleLifetimeSeconds
        self.refreshAbsoluteLifetimeSeconds = refreshAbsoluteLifetimeSeconds
    }

    /// Exact string match with a registered redirect URI; a loopback `http` redirect
    /// (127.0.0.1 / [::1]) may differ only in its port (RFC 8252 §7.3).
    public func acceptsRedirect(_ uri: String) -> Bool {
        if redirectURIs.contains(uri) { return true }
        guard let candidate = LoopbackURI(uri) else { return false }
        return redirectURIs.compactMap(LoopbackURI.init).contains { $0.withoutPort == candidate.withoutPort }
    }

    /// Exact match with a registered post-logout redirect URI.
    public func acceptsPostLogoutRedirect(_ uri: String) -> Bool {
        postLogoutRedirectURIs.contains(uri)
    }

    /// Checks the registration: ids, URI syntax, lifetimes.
    public func validate() throws {
        func fail(_ m: String) throws -> Never { throw AuthStoreError.invalid(m) }
        if !(1...128).contains(clientID.count)
            || clientID.unicodeScalars.contains(where: { !(0x21...0x7E).contains($0.value) })
        {
            try fail("--client-id must be 1-128 printable ASCII characters without spaces")
        }
        if isSender {
            if !confidential { try fail("a client_credentials client must be --confidential") }
            if (miniApps ?? []).isEmpty { try fail("a client_credentials client needs at least one --miniapp") }
            if Set(allowedScopes).intersection(ClientCredentials.senderScopes).isEmpty {
                try fail("a client_credentials client needs a sender --scope (\(ClientCredentials.senderScopes.sorted().joined(separator: ", ")))")
            }
        } else if redirectURIs.isEmpty, !isBackchannelOnly {
            try fail("at least one --redirect-uri is required")
        }
        try validateBackchannel()
        if let jwks {
            guard confidential else { try fail("--jwks is for confidential clients") }
            guard JWK.isAssertionKeySet(jwks) else {
                try fail(
                    "--jwks must be a JWK Set of 1-10 public signing keys (EC P-256 or RSA of 2048 bits or more, no private members)")
            }
        }
        for app in miniApps ?? [] where !ReleasePolicyRules.isIdentifier(app) { try fail("invalid --miniapp '\(app.prefix(80))'") }
        for uri in redirectURIs + postLogoutRedirectURIs {
            guard let url = URLComponents(string: uri), let scheme = url.scheme, url.fragment == nil else {
                try fail("redirect URI '\(uri)' is not an absolute URI without fragment")
            }
            if scheme == "http", LoopbackURI(uri) == nil, url.host != "localhost" {
                try fail("redirect URI '\(uri)': plain http is only allowed for loopback addresses")
            }
        }
        for scope in allowedScopes where scope.isEmpty || scope.contains(" ") { try fail("invalid --scope '\(scope)'") }
        for scope in defaultScopes ?? [] where scope.isEmpty || scope.contains(" ") {
            try fail("invalid --default-scope '\(scope)'")
        }
        if !isFirstParty, let held = (allowedScopes + (defaultScopes ?? [])).first(where: APIScope.firstPartyOnly.contains) {
            try fail("the \(held) scope is for --first-party clients (the tenant's own host app)")
        }
        if isSender, !(defaultScopes ?? []).isEmpty {
            try fail("a client_credentials client holds sender scopes (--scope), no --default-scope")
        }
        if let grantTypes {
            for grant in grantTypes where !Self.registrableGrantTypes.contains(grant) {
                try fail(
                    "--grant-type must be one of \(Self.registrableGrantTypes.joined(separator: ", ")), got '\(grant)'")
            }
            if grantTypes.contains(ClientCredentials.grantType), grantTypes.count > 1 {
                try fail("--grant-type client_credentials stands alone (a sender is no app users sign in to)")
            }
            if !grantTypes.contains("authorization_code"), !grantTypes.contains(TokenExchange.grantType),
                !grantTypes.contains(BackchannelRules.grantType), !isSender
            {
                try fail(
                    "--grant-type must include authorization_code, \(TokenExchange.grantType) or ciba (the ways to first get tokens)"
                )
            }
        }
        for (name, value) in [
            ("access-token", accessTokenLifetimeSeconds), ("refresh-idle", refreshIdleLifetimeSeconds),
            ("refresh-absolute", refreshAbsoluteLifetimeSeconds),
        ] where value < 1 {
            try fail("--\(name)-lifetime must be a positive number of seconds")
        }
    }
}

extension OAuthClient {
    /// A client that only signs users in through the backchannel (CIBA): no redirect URI.
    public var isBackchannelOnly: Bool {
        allows(grantType: BackchannelRules.grantType) && !allows(grantType: "authorization_code")
    }

    /// A CIBA client is confidential with a delivery mode; a ping client names an https
    /// notification endpoint (plain http only on loopback); other clients have none of it.
    func validateBackchannel() throws {
        func fail(_ m: String) throws -> Never { throw AuthStoreError.invalid(m) }
        guard allows(grantType: BackchannelRules.grantType) else {
            if backchannelMode != nil || backchannelNotificationEndpoint != nil || backchannelUserCodeRequired == true {
                try fail("--ciba-mode, --ciba-notification-endpoint and --require-user-code need --grant-type ciba")
            }
            return
        }
        guard confidential else { try fail("a ciba client must be --confidential") }
        guard let mode = backchannelMode else { try fail("a ciba client needs --ciba-mode poll or ping") }
        switch (mode, backchannelNotificationEndpoint) {
        case (.poll, nil): return
        case (.poll, _): try fail("--ciba-notification-endpoint is for --ciba-mode ping")
        case (.ping, nil): try fail("--ciba-mode ping needs --ciba-notification-endpoint")
        case (.ping, let endpoint?):
            guard endpoint.count <= 2048, let url = URLComponents(string: endpoint), url.host?.isEmpty == false,
                url.fragment == nil, url.scheme == "https" || (url.scheme == "http" && LoopbackURI(endpoint) != nil)
            else {
                try fail("--ciba-notification-endpoint must be an https URL (http only on 127.0.0.1 or [::1])")
            }
        }
    }
}

/// An `http://127.0.0.1[:port]/...` or `http://[::1][:port]/...` URI split for port-insensitive comparison.
struct LoopbackURI: Equatable {
    let withoutPort: String

    init?(_ uri: String) {
        guard let c = URLComponents(string: uri), c.scheme == "http", let host = c.host,
            host == "127.0.0.1" || host == "[::1]" || host == "::1"
        else { return nil }
        var copy = c
        copy.port = nil
        guard let s = copy.string else { return nil }
        withoutPort = s
    }
}

/// Why an auth store refused a write.
public enum AuthStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)
    case notFound(String)
    case alreadyExists(String)

    public var description: String {
        switch self {
        case .invalid(let m): m
        case .notFound(let m): "\(m) not found"
        case .alreadyExists(let m): "\(m) already exists"
        }
    }
}
