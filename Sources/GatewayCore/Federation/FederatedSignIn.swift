import Foundation

/// Sign-in through an upstream OpenID Provider: the gateway is the provider's relying party
/// (authorization code + PKCE S256 + `state` + `nonce`), then finishes the original client's
/// authorization as usual (its PKCE, its redirect URI, the gateway's tokens).
///
/// The sign-in in flight lives in the shared ``Cache`` under the hash of its `state` (256
/// random bits) for ten minutes, bound to the browser that started it; it is taken once.
public struct FederatedSignIn: Sendable {
    /// How long the user has to come back from the provider.
    public static let lifetime: Duration = .seconds(600)
    let store: any FederationStore
    let issuers: UpstreamIssuers
    let validator: ExternalJWTValidator
    let linker: IdentityLinker
    let cache: any Cache

    public init(
        store: any FederationStore, issuers: UpstreamIssuers, validator: ExternalJWTValidator, linker: IdentityLinker,
        cache: any Cache
    ) {
        self.store = store
        self.issuers = issuers
        self.validator = validator
        self.linker = linker
        self.cache = cache
    }

    /// A sign-in waiting for the provider's answer.
    struct Pending: Codable, Sendable {
        var tenantID: String
        var alias: String
        /// The client's request (a PAR request already resolved).
        var request: AuthorizationRequest
        var pushed: Bool
        var nonce: String
        var codeVerifier: String
        /// The browser's federation cookie value.
        var browser: String
    }

    /// The providers of a tenant, for the sign-in page.
    public func providers(tenantID: String) async throws -> [IdentityProvider] {
        try await store.identityProviders(tenantID: tenantID)
    }

    /// Starts a sign-in at `provider` (one of the tenant's) for the validated client request; returns the
    /// provider's authorization URL to redirect the browser to.
    /// - Parameters:
    ///   - pushed: the request came through PAR (it is stored resolved).
    ///   - browser: the browser's federation cookie value; the callback must carry the same.
    ///   - callbackURL: this tenant's callback, registered at the provider as redirect URI.
    ///
    /// A provider that cannot be used (unreachable, misconfigured) is an RFC 6749 error on the
    /// client's redirect URI (``AuthorizationFailure/redirect(_:redirectURI:state:)``).
    public func begin(
        _ validated: ValidatedAuthorization, pushed: Bool, provider: IdentityProvider, browser: String,
        callbackURL: String
    ) async throws -> String {
        do {
            return try await authorizationURL(
                validated, pushed: pushed, provider: provider, browser: browser, callbackURL: callbackURL)
        } catch let error as FederationError {
            throw AuthorizationFailure.redirect(
                Self.oauthError(error), redirectURI: validated.redirectURI, state: validated.request.state)
        }
    }

    private func authorizationURL(
        _ validated: ValidatedAuthorization, pushed: Bool, provider: IdentityProvider, browser: String,
        callbackURL: String
    ) async throws -> String {
        let tenantID = validated.client.tenantID
        let metadata = try await issuers.metadata(tenantID: tenantID, issuer: provider.issuer)
        guard let endpoint = metadata.authorizationEndpoint, metadata.tokenEndpoint != nil else {
            throw FederationError.providerMisconfigured("the discovery document has no authorization or token endpoint")
        }
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw FederationError.providerMisconfigured("the provider does not support PKCE S256")
        }
        var request = validated.request
        request.requestURI = nil
        let pending = Pending(
            tenantID: tenantID, alias: provider.alias, request: request, pushed: pushed,
            nonce: Base64URL.random(byteCount: 32),
            codeVerifier: Base64URL.random(byteCount: 32), browser: browser)
        let state = Base64URL.random(byteCount: 32)
        try await cache.set(
            Self.key(state, tenantID: tenantID), Array(try JSONEncoder().encode(pending)), ttl: Self.lifetime)
        return AuthorizationServer.redirect(
            endpoint,
            [
                "response_type": "code", "client_id": provider.clientID, "redirect_uri": callbackURL,
                "scope": provider.scopes.joined(separator: " "),
                "state": state, "nonce": pending.nonce, "code_challenge": PKCE.challenge(for: pending.codeVerifier),
                "code_challenge_method": "S256",
                "ui_locales": request.uiLocales, "login_hint": request.loginHint,
            ])
    }

    /// What the provider sent back to the callback.
    public struct Callback: Sendable {
        public var state: String?
        public var code: String?
        public var error: String?
        public var errorDescription: String?
        /// RFC 9207 `iss`: when present it must be the provider's issuer (mix-up defence).
        public var issuer: String?

        public init(state: String?, code: String?, error: String?, errorDescription: String?, issuer: String?) {
            self.state = state
            self.code = code
            self.error = error
            self.errorDescription = errorDescription
            self.issuer = issuer
        }
    }

    /// Finishes a sign-in: takes the pending sign-in of `callback.state` (once), checks the
    /// browser, re-validates the client's request, redeems the code at the provider,
    /// validates the ID token and links the upstream identity to a local user.
    ///
    /// Throws ``FederationError/invalidState`` when there is nothing to finish (no client to
    /// redirect to), ``AuthorizationFailure`` otherwise: any failure after the client's
    /// request is known goes back to its redirect URI as an RFC 6749 error.
    public func finish(
        tenantID: String, callback: Callback, browser: String?, callbackURL: String, auth: AuthorizationServer
    ) async throws -> (ValidatedAuthorization, LocalUser) {
        guard let state = callback.state, state.count <= 128,
            let bytes = try await cache.take(Self.key(state, tenantID: tenantID)),
            let pending = try? JSONDecoder().decode(Pending.self, from: Data(bytes)), pending.tenantID == tenantID
        else { throw FederationError.invalidState }
        guard let browser, ConstantTime.equals(browser, pending.browser) else { throw FederationError.invalidState }
        let validated = try await auth.validate(
            pending.request, tenantID: tenantID, consumePAR: false, pushed: pending.pushed)
        do {
            return (validated, try await redeem(pending, callback: callback, callbackURL: callbackURL))
        } catch let error as FederationError {
            throw AuthorizationFailure.redirect(
                Self.oauthError(error), redirectURI: validated.redirectURI, state: validated.request.state)
        }
    }

    private func redeem(_ pending: Pending, callback: Callback, callbackURL: String) async throws -> LocalUser {
        guard
            let provider = try await store.identityProviders(tenantID: pending.tenantID).first(where: {
                $0.alias == pending.alias
            })
        else {
            throw FederationError.unknownProvider(pending.alias)
        }
        if let error = callback.error {
            throw FederationError.providerRefused(
                String((error + (callback.errorDescription.map { ": " + $0 } ?? "")).prefix(300)))
        }
        if let iss = callback.issuer, iss != provider.issuer {
            throw FederationError.providerRefused("the answer names another issuer (iss)")
        }
        guard let code = callback.code, !code.isEmpty, code.count <= 2048 else {
            throw FederationError.providerRefused("no authorization code")
        }
        let metadata = try await issuers.metadata(tenantID: pending.tenantID, issuer: provider.issuer)
        guard let tokenEndpoint = metadata.tokenEndpoint else {
            throw FederationError.providerMisconfigured("no token endpoint")
        }
        let form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", callbackURL),
            ("code_verifier", pending.codeVerifier),
        ]
        let tokens = try await issuers.post(
            tenantID: pending.tenantID, url: tokenEndpoint, form: form, clientID: provider.clientID,
            secret: provider.clientSecret)
        guard let idToken = tokens["id_token"]?.stringValue else {
            throw FederationError.tokenRejected("the provider returned no ID token")
        }
        let claims = try await validator.validate(
            idToken, tenantID: pending.tenantID,
            expecting: .init(
                issuer: provider.issuer, audience: provider.clientID, jwksURI: metadata.jwksURI, nonce: pending.nonce))
        return try await linker.localUser(
            tenantID: pending.tenantID, issuer: provider.issuer, claims: claims,
            linkByVerifiedEmail: provider.linkByVerifiedEmail)
    }

    /// The RFC 6749 error the client sees for a failed upstream step.
    static func oauthError(_ error: FederationError) -> OAuthError {
        switch error {
        case .providerUnavailable:
            OAuthError("temporarily_unavailable", "the identity provider is unavailable; try again later")
        case .providerMisconfigured, .unknownProvider:
            OAuthError("server_error", "the identity provider is not set up correctly")
        case .providerRefused(let reason): .accessDenied("the identity provider refused the sign-in (\(reason))")
        case .tokenRejected(let reason): .accessDenied("the identity provider's answer was rejected: \(reason)")
        case .userDisabled: .accessDenied("this account is disabled")
        case .invalidState: .invalidRequest("the sign-in expired; start again")
        }
    }

    private static func key(_ state: String, tenantID: String) -> String {
        "oidc:state:\(tenantID):" + Base64URL.sha256(state)
    }
}
