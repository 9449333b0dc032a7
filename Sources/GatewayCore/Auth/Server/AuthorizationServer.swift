import Foundation
import NIOPosix

/// The authorization server of every tenant: request validation, PAR, sign-in, code
/// issuance, client authentication and the token service, over injected stores and cache.
public struct AuthorizationServer: Sendable {
    public let clients: any ClientStore
    /// Local users; a recovery also ends their sessions in the password's transaction.
    public let users: any UserStore & UserSuspender
    public let keys: KeyRing
    public let codes: AuthorizationCodes
    public let tokens: TokenService
    public let verifier: TokenVerifier
    public let dpop: DPoPVerifier
    public let throttle: LoginThrottle
    public let hasher: PasswordHasher
    /// The wall clock tokens, codes and throttles read.
    public let clock: WallClock
    /// RP-initiated logout.
    public let logout: SessionLogout
    /// Revoked token ids (the gateway's access tokens and mini-app tokens).
    public let revocations: RevokedTokens
    /// Sign-ins waiting for a second factor (`auth_session`).
    public let pending: PendingSignIns
    /// Browsers' single sign-on sessions (nil without a sealer: no SSO).
    public let browserSessions: BrowserSessions?
    /// Signed-in users on a third-party client's consent page.
    public let consents: PendingConsents
    let cache: any Cache
    /// Seals what must not sit in the shared cache in the clear (CIBA's client notification tokens).
    let sealer: SecretSealer?
    /// Client records (nil for unknown ids), read at most every ``clientSettingLifetime``.
    private let clientRecords: ShortLivedMemo<OAuthClient?>

    /// How long a replica may act on a client's record before reading it again: a change,
    /// removal included, reaches every replica within this time. Every token request and every
    /// DPoP-bound API request asks for its client; reading the row each time was a database
    /// round trip per refresh (issue 32). Client secrets are not kept: a confidential client's
    /// secret is checked against the stored hash on every request.
    public static let clientSettingLifetime: Duration = .seconds(5)

    /// PAR request lifetime.
    public static let parLifetime = 60
    /// The `request_uri` prefix of RFC 9126.
    public static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"

    /// - Parameters:
    ///   - revocations: how revoked token ids are shared; by default they live in `cache`.
    ///   - clock: what tokens are issued and checked against, and the sign-in throttle counts by.
    ///   - devices: users' push devices, removed when a user signs out everywhere.
    public init(
        clients: any ClientStore, users: any UserStore & UserSuspender, refreshTokens: any RefreshTokenStore, keys: KeyRing,
        cache: any Cache,
        hasher: PasswordHasher = PasswordHasher(), memo: VerifiedTokenMemo? = VerifiedTokenMemo(),
        loginPolicy: LoginThrottle.Policy = .init(),
        revocations: RevokedTokens? = nil, devices: (any DeviceStore)? = nil, sealer: SecretSealer? = nil,
        clock: WallClock = .system
    ) {
        self.sealer = sealer
        self.clients = clients
        self.users = users
        self.keys = keys
        self.cache = cache
        self.codes = AuthorizationCodes(cache: cache, clock: clock)
        let revoked = revocations ?? RevokedTokens(cache: cache, clock: clock)
        self.revocations = revoked
        self.clock = clock
        self.clientRecords = ShortLivedMemo(lifetime: Self.clientSettingLifetime, now: clock.instant)
        self.tokens = TokenService(
            keys: keys, refreshStore: refreshTokens, users: users, codes: codes, revoked: revoked, now: clock.now)
        self.verifier = TokenVerifier(keys: keys, revoked: revoked, memo: memo, now: clock.now)
        self.dpop = DPoPVerifier(cache: cache, now: clock.now)
        self.throttle = LoginThrottle(cache: cache, policy: loginPolicy, now: clock.milliseconds)
        self.hasher = hasher
        self.logout = SessionLogout(verifier: verifier, clients: clients, tokens: tokens, devices: devices)
        self.pending = PendingSignIns(cache: cache)
        self.consents = PendingConsents(cache: cache)
        self.browserSessions = sealer.map { BrowserSessions(cache: cache, sealer: $0, clock: clock) }
    }

    /// Whether `clientID`'s DPoP proofs must carry the server's nonce on the API (`--dpop-nonce`,
    /// RFC 9449 §9), from the client's record as of at most ``clientSettingLifetime`` ago.
    public func requiresDPoPNonce(tenantID: String, clientID: String) async throws -> Bool {
        try await client(tenantID: tenantID, clientID: clientID)?.dpopNonceRequired == true
    }

    /// The client `clientID` of `tenantID` as the store had it at most ``clientSettingLifetime``
    /// ago (nil: unknown then).
    public func client(tenantID: String, clientID: String) async throws -> OAuthClient? {
        // No client id holds a control character; the stores would cut one short (issue 62).
        guard !ControlCharacters.held(in: clientID) else { return nil }
        let clients = self.clients
        return try await clientRecords.value(tenantID + "\u{0}" + clientID) {
            try await clients.client(tenantID: tenantID, clientID: clientID)
        }
    }

    /// One backend for every auth store (``SQLiteAuthStore`` or the PostgreSQL one).
    /// - Parameter keys: the key ring (one that follows the tenant directory); nil: a new one on `store`.
    public init(
        store: any AuthStore, keys: KeyRing? = nil, cache: any Cache, hasher: PasswordHasher = PasswordHasher(),
        memo: VerifiedTokenMemo? = VerifiedTokenMemo(),
        loginPolicy: LoginThrottle.Policy = .init(), revocations: RevokedTokens? = nil,
        devices: (any DeviceStore)? = nil, sealer: SecretSealer? = nil, clock: WallClock = .system
    ) {
        self.init(
            clients: store, users: store, refreshTokens: store, keys: keys ?? KeyRing(store: store, clock: clock),
            cache: cache,
            hasher: hasher, memo: memo,
            loginPolicy: loginPolicy, revocations: revocations, devices: devices, sealer: sealer, clock: clock)
    }

    // MARK: authorization requests

    /// Validates an authorization request (resolving a PAR `request_uri` first when `consumePAR`).
    /// With `pushed` true the request is being pushed (PAR endpoint) and the PAR requirement holds.
    public func validate(
        _ input: AuthorizationRequest, tenantID: String, consumePAR: Bool, pushed: Bool = false
    ) async throws -> ValidatedAuthorization {
        var request = input
        var viaPAR = pushed
        if let requestURI = input.requestURI {
            guard requestURI.hasPrefix(Self.requestURIPrefix), let clientID = input.clientID else {
                throw AuthorizationFailure.errorPage(.requestURIInvalid)
            }
            let key = Self.pushedRequestKey(tenantID: tenantID, id: requestURI.dropFirst(Self.requestURIPrefix.count))
            let bytes = consumePAR ? try await cache.take(key) : try await cache.get(key)
            guard let bytes, let stored = try? JSONDecoder().decode(AuthorizationRequest.self, from: Data(bytes)),
                stored.clientID == clientID
            else {
                throw AuthorizationFailure.errorPage(.requestURIUnknown)
            }
            request = stored
            viaPAR = true
        }
        guard let clientID = request.clientID, !clientID.isEmpty, clientID.count <= 128,
              let client = try await clients.client(tenantID: tenantID, clientID: clientID) else {
            throw AuthorizationFailure.errorPage(.unknownClient)
        }
        let redirectURI: String
        if let given = request.redirectURI {
            guard client.acceptsRedirect(given) else { throw AuthorizationFailure.errorPage(.redirectURINotRegistered) }
            redirectURI = given
        } else {
            guard client.redirectURIs.count == 1 else { throw AuthorizationFailure.errorPage(.redirectURIRequired) }
            redirectURI = client.redirectURIs[0]
        }
        func bounce(_ error: OAuthError) -> AuthorizationFailure {
            .redirect(error, redirectURI: redirectURI, state: request.state)
        }
        if client.requirePAR, !viaPAR {
            throw bounce(.invalidRequest("this client must use pushed authorization requests"))
        }
        guard request.responseType == "code" else {
            throw bounce(OAuthError("unsupported_response_type", "response_type must be code"))
        }
        do { _ = try Self.checkPKCE(challenge: request.codeChallenge, method: request.codeChallengeMethod) } catch let
            error as OAuthError
        { throw bounce(error) }
        let scope: String
        do { scope = try Self.grantedScope(request.scope, client: client) } catch let error as OAuthError {
            throw bounce(error)
        }
        let prompts = request.prompts
        if prompts.contains("none"), prompts.count > 1 {
            throw bounce(.invalidRequest("prompt=none cannot be combined with other values"))
        }
        if let maxAge = request.maxAge, Int(maxAge).map({ $0 >= 0 }) != true {
            throw bounce(.invalidRequest("max_age must be a whole number of seconds"))
        }
        return ValidatedAuthorization(client: client, redirectURI: redirectURI, request: request, scope: scope)
    }

    /// The scope a request gets: what it asked for (default `openid`) plus the client's default
    /// scopes (``OAuthClient/grantedScopes(requested:origin:)``), `openid` always; else
    /// `invalid_scope`.
    static func grantedScope(_ requested: String?, client: OAuthClient, origin: GrantOrigin = .userSignIn) throws
        -> String
    {
        let requested = (requested ?? "openid").split(separator: " ").map(String.init)
        var scopes = try client.grantedScopes(requested: requested, origin: origin)
        if !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        return scopes.joined(separator: " ")
    }

    /// Checks `code_challenge` and `code_challenge_method` (PKCE with S256 is mandatory).
    static func checkPKCE(challenge: String?, method: String?) throws -> String {
        guard let challenge else { throw OAuthError.invalidRequest("code_challenge is required (PKCE)") }
        guard method == "S256" else { throw OAuthError.invalidRequest("code_challenge_method must be S256") }
        guard PKCE.isValidChallenge(challenge) else {
            throw OAuthError.invalidRequest("code_challenge must be 43 characters of base64url")
        }
        return challenge
    }

    /// Where a pushed request waits in the shared cache: `id` is its `request_uri` without the prefix.
    static func pushedRequestKey(tenantID: String, id: some StringProtocol) -> String { "oauth:par:\(tenantID):\(id)" }

    /// Stores a pushed authorization request; returns its `request_uri`.
    public func push(_ request: AuthorizationRequest, client: OAuthClient) async throws -> String {
        var stored = request
        stored.requestURI = nil
        stored.clientID = client.clientID
        let id = Base64URL.random(byteCount: 24)
        try await cache.set(
            Self.pushedRequestKey(tenantID: client.tenantID, id: id), Array(try JSONEncoder().encode(stored)),
            ttl: .seconds(Self.parLifetime))
        return Self.requestURIPrefix + id
    }

    // MARK: sign-in

    /// Checks credentials under the ``LoginThrottle``: unknown users, wrong passwords and
    /// disabled users get the same `.failed` after the same scrypt work; an attempt the
    /// throttle holds back is `.throttled` without any password check.
    public func authenticate(
        tenantID: String, username: String, password: String, address: String?
    ) async throws -> SignInOutcome {
        let hasher = self.hasher
        switch await throttle.check(tenantID: tenantID, username: username, address: address) {
        case .throttled(let retryAfter):
            return .throttled(retryAfter: retryAfter)
        case .proceed(let slowdown):
            if slowdown > .zero { try await Task.sleep(for: slowdown) }
        }
        let user =
            username.isEmpty || username.count > 200 || ControlCharacters.held(in: username)
            ? nil : try await users.user(tenantID: tenantID, username: username)
        // scrypt is deliberately expensive (~32 MiB, tens of ms): it runs on NIO's blocking
        // thread pool, never on the cooperative pool that serves every other request.
        let ok: Bool = try await NIOThreadPool.singleton.runIfActive {
            guard let user else { hasher.dummyVerify(password); return false }
            return hasher.verify(password, against: user.passwordHash) && !user.disabled
        }
        guard ok, let user else {
            await throttle.recordFailure(tenantID: tenantID, username: username, address: address)
            return .failed
        }
        await throttle.recordSuccess(tenantID: tenantID, username: username, address: address)
        return .signedIn(user)
    }

    /// Issues a code for a signed-in user; returns the redirect URL with code, state and iss.
    /// Every sign-in starts a new login session (the `sid` of the ID tokens it leads to).
    /// - Parameters:
    ///   - amr: how the person authenticated (RFC 8176); `authTime`: when (nil: now), for the
    ///     ID token. A silent sign-in through a browser session gives the session's.
    ///   - stepUp: the tenant's settings, whose classes the request's `acr_values` may name
    ///     (the ID token's `acr` is the first asked one the sign-in meets).
    public func completeAuthorization(
        _ auth: ValidatedAuthorization, user: LocalUser, issuer: String, amr: [String], authTime: Int64? = nil,
        stepUp: JourneySettings = JourneySettings()
    ) async throws -> String {
        let now = clock.now()
        let code = try await issueCode(
            client: auth.client, redirectURI: auth.redirectURI, codeChallenge: auth.request.codeChallenge ?? "",
            user: user,
            scope: auth.scope, nonce: auth.request.nonce, dpopJKT: nil, now: now, amr: amr, authTime: authTime,
            acr: stepUp.acr(amr: amr, asked: auth.request.acrList))
        return Self.redirect(auth.redirectURI, ["code": code, "state": auth.request.state, "iss": issuer])
    }

    /// A code for a finished sign-in; it starts a new login session (`sid`).
    func issueCode(
        client: OAuthClient, redirectURI: String?, codeChallenge: String, user: LocalUser, scope: String,
        nonce: String?, dpopJKT: String?,
        now: Date, amr: [String]? = nil, authTime: Int64? = nil, acr: String? = nil
    ) async throws -> String {
        var grant = AuthorizationGrant(
            tenantID: client.tenantID, clientID: client.clientID, redirectURI: redirectURI,
            codeChallenge: codeChallenge,
            subject: user.subject, scope: scope, nonce: nonce, authTime: authTime ?? Int64(now.timeIntervalSince1970),
            sessionID: Base64URL.random(byteCount: 16), dpopJKT: dpopJKT)
        if let amr, !amr.isEmpty {
            grant.amr = amr
            grant.acr = acr ?? Self.acr(of: amr)
        }
        return try await codes.issue(grant)
    }

    /// The authentication context class `amr` meets: the passkey one with a passkey's user
    /// verification, the TOTP one with a one-time password, else the password one (the values
    /// `acr_values_supported` names).
    public static func acr(of amr: [String]) -> String {
        if amr.contains("user") { return BackchannelRules.passkeyACR }
        return amr.contains("otp") ? BackchannelRules.totpACR : BackchannelRules.passwordACR
    }

    /// `uri` with query parameters appended (nil values skipped).
    public static func redirect(_ uri: String, _ parameters: KeyValuePairs<String, String?>) -> String {
        var components = URLComponents(string: uri) ?? URLComponents()
        var items = components.queryItems ?? []
        for (name, value) in parameters { if let value { items.append(URLQueryItem(name: name, value: value)) } }
        components.percentEncodedQuery = items.map { "\(Self.formEncode($0.name))=\(Self.formEncode($0.value ?? ""))" }
            .joined(separator: "&")
        return components.string ?? uri
    }

    static func formEncode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// The redirect for an error per RFC 6749 §4.1.2.1.
    public static func errorRedirect(_ error: OAuthError, redirectURI: String, state: String?, issuer: String) -> String
    {
        redirect(
            redirectURI, ["error": error.code, "error_description": error.description, "state": state, "iss": issuer])
    }

    // MARK: clients

    /// Authenticates the client at the token, revocation and introspection endpoints:
    /// public clients send `client_id` only; confidential ones add `client_secret`, or, when
    /// registered with keys, a signed `client_assertion` (`private_key_jwt`), each `jti` once.
    public func authenticateClient(
        tenantID: String, clientID: String?, secret: String?, assertion: ClientAssertion? = nil,
        requireConfidential: Bool = false
    ) async throws -> OAuthClient {
        if let assertion {
            let named = try assertion.claimedClientID()
            guard secret == nil, clientID == nil || clientID == named,
                let client = try await client(tenantID: tenantID, clientID: named), client.usesPrivateKeyJWT
            else { throw OAuthError.invalidClient("client authentication failed") }
            let checked = try assertion.check(for: client, now: clock.now())
            let lifetime = max(1, checked.expiresAt.timeIntervalSince(clock.now()) + TokenVerifier.skew)
            guard
                try await cache.setIfAbsent(
                    "oauth:jti:\(tenantID):\(CacheKey.escape(client.clientID)):\(CacheKey.escape(checked.jti))", [1],
                    ttl: .milliseconds(Int64(lifetime * 1000)))
            else { throw OAuthError.invalidClient("client_assertion was used before (jti)") }
            return client
        }
        guard let clientID, !clientID.isEmpty, clientID.count <= 128,
            let client = try await client(tenantID: tenantID, clientID: clientID)
        else {
            throw OAuthError.invalidClient("client authentication failed")
        }
        if client.usesPrivateKeyJWT {
            throw OAuthError.invalidClient("this client authenticates with private_key_jwt (client_assertion)")
        }
        if client.confidential {
            guard let secret, let hash = try await clients.clientSecretHash(tenantID: tenantID, clientID: clientID),
                ClientSecret.verify(secret, hash: hash)
            else { throw OAuthError.invalidClient("client authentication failed") }
        } else if requireConfidential {
            throw OAuthError.invalidClient("this endpoint requires a confidential client")
        }
        return client
    }
}

/// The result of a sign-in attempt.
public enum SignInOutcome: Sendable {
    case signedIn(LocalUser)
    /// Unknown user, wrong password or disabled user (indistinguishable).
    case failed
    /// Held back by the ``LoginThrottle``; the password was not checked.
    case throttled(retryAfter: Duration)
}
