import Foundation

/// A token-exchange request (RFC 8693 §2.1) as the token endpoint received it.
public struct TokenExchangeRequest: Sendable, Equatable {
    public var subjectToken: String?
    public var subjectTokenType: String?
    public var requestedTokenType: String?
    /// For a mini-app token: the audience of the token (as `POST /miniapps/{id}/access-token`).
    public var audience: String?
    /// For a mini-app token: `urn:superapp:miniapp:<id>`.
    public var resource: String?
    /// Space-separated: the gateway scopes (a trusted issuer's token) or the mini-app token's scopes.
    public var scope: String?

    public init(
        subjectToken: String?, subjectTokenType: String?, requestedTokenType: String? = nil, audience: String? = nil,
        resource: String? = nil, scope: String? = nil
    ) {
        self.subjectToken = subjectToken
        self.subjectTokenType = subjectTokenType
        self.requestedTokenType = requestedTokenType
        self.audience = audience
        self.resource = resource
        self.scope = scope
    }
}

/// Token exchange (RFC 8693) at the token endpoint, for clients registered with the grant:
///
/// - a token of an issuer the tenant trusts → the gateway's access, refresh and ID tokens for
///   the client (the user linked like a trusted bearer token), so an app can move to the
///   gateway's tokens without a browser;
/// - the client's own gateway access token + `resource=urn:superapp:miniapp:<id>` +
///   `audience` + `scope` → a mini-app access token, decided by exactly the rules of
///   `POST /miniapps/{id}/access-token` (the caller runs that same implementation with the
///   ``Decision/miniAppToken(subject:miniAppID:request:)`` this returns).
public struct TokenExchange: Sendable {
    /// `grant_type`.
    public static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// RFC 8693 §3 token type identifiers.
    public static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    public static let jwtType = "urn:ietf:params:oauth:token-type:jwt"
    public static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"
    /// The `resource` prefix naming a mini app.
    public static let miniAppResourcePrefix = "urn:superapp:miniapp:"

    let auth: AuthorizationServer
    let trusted: TrustedTokenVerifier

    public init(auth: AuthorizationServer, trusted: TrustedTokenVerifier) {
        self.auth = auth
        self.trusted = trusted
    }

    /// What the exchange comes to.
    public enum Decision: Sendable, Equatable {
        /// The gateway's tokens for the client (already issued).
        case gatewayTokens(TokenResponse)
        /// A mini-app token to issue for `subject` by the mini-app access-token rules.
        case miniAppToken(subject: String, miniAppID: String, request: AccessTokenRequest)
    }

    /// Decides an exchange for an authenticated `client`.
    /// - Throws: ``OAuthError``: `unauthorized_client` (grant not registered), `invalid_request`
    ///   (missing or unsupported parameters), `invalid_grant` (the subject token does not
    ///   verify or its issuer is not trusted), `invalid_target` (a malformed mini-app resource);
    ///   `temporarily_unavailable` (503) when a trusted issuer's keys cannot be fetched.
    public func decide(
        _ r: TokenExchangeRequest, client: OAuthClient, issuer: String, dpopJKT: String?
    ) async throws -> Decision {
        guard client.allows(grantType: Self.grantType) else {
            throw OAuthError.unauthorizedClient("this client may not use token exchange")
        }
        guard let token = r.subjectToken, !token.isEmpty, token.utf8.count <= 16_384 else {
            throw OAuthError.invalidRequest("subject_token is required")
        }
        guard let type = r.subjectTokenType else { throw OAuthError.invalidRequest("subject_token_type is required") }
        guard [Self.accessTokenType, Self.jwtType, Self.idTokenType].contains(type) else {
            throw OAuthError.invalidRequest(
                "subject_token_type must be an access token, JWT or ID token type (RFC 8693 §3)")
        }
        if let requested = r.requestedTokenType, requested != Self.accessTokenType {
            throw OAuthError.invalidRequest("requested_token_type must be \(Self.accessTokenType)")
        }
        let claimed = TrustedTokenVerifier.claimedIssuer(token)
        // A mini-app token (named by `resource`) is only ever for this tenant's own token.
        if claimed == issuer || r.resource != nil {
            return try await miniAppExchange(r, token: token, client: client, issuer: issuer)
        }
        let claims: AccessTokenClaims
        do {
            if let claimed {
                claims = try await trusted.verify(token, claimedIssuer: claimed, tenantID: client.tenantID)
            } else if let opaque = try await trusted.verifyOpaque(token, tenantID: client.tenantID) {
                claims = opaque
            } else {
                throw OAuthError.invalidGrant(
                    "subject_token is not a JWT, and no trusted issuer introspects opaque tokens")
            }
        } catch let rejection as TokenRejection {
            throw OAuthError.invalidGrant("subject_token: \(rejection.detail)")
        } catch FederationError.providerUnavailable {
            throw OAuthError(
                "temporarily_unavailable",
                "the subject token's issuer cannot be reached to check it; try again shortly", status: 503)
        }
        let scope = try AuthorizationServer.grantedScope(r.scope, client: client, origin: .tokenExchange)
        return .gatewayTokens(
            try await auth.tokens.issueForSubject(
                issuer: issuer, client: client, subject: claims.subject, scope: scope, dpopJKT: dpopJKT))
    }

    private func miniAppExchange(
        _ r: TokenExchangeRequest, token: String, client: OAuthClient, issuer: String
    ) async throws -> Decision {
        guard r.subjectTokenType == Self.accessTokenType else {
            throw OAuthError.invalidRequest(
                "subject_token_type must be \(Self.accessTokenType) for this tenant's token")
        }
        let claims: AccessTokenClaims
        do {
            claims = try await auth.verifier.verify(token, issuer: issuer, tenantID: client.tenantID)
        } catch let rejection as TokenRejection {
            throw OAuthError.invalidGrant("subject_token: \(rejection.detail)")
        }
        guard claims.clientID == client.clientID else {
            throw OAuthError.invalidGrant("subject_token was issued to another client")
        }
        guard claims.dpopJKT == nil else {
            throw OAuthError.invalidGrant("a DPoP-bound subject_token cannot be exchanged")
        }
        // The same door as `POST …/miniapps/{id}/access-token`: the subject token's `miniapp-data`.
        guard claims.holds(APIScope.miniAppData) else {
            throw OAuthError.invalidGrant("subject_token does not hold the \(APIScope.miniAppData) scope")
        }
        guard let resource = r.resource, resource.hasPrefix(Self.miniAppResourcePrefix) else {
            throw OAuthError("invalid_target", "resource must name the mini app: \(Self.miniAppResourcePrefix)<id>")
        }
        let miniAppID = String(resource.dropFirst(Self.miniAppResourcePrefix.count))
        // The rule of the `{id}` path parameter: 1-128 of [A-Za-z0-9._-], not only dots.
        guard (1...128).contains(miniAppID.utf8.count),
            miniAppID.utf8.allSatisfy({ ASCIIByte.isLetterOrDigit($0) || "._-".utf8.contains($0) }),
            miniAppID.utf8.contains(where: { $0 != UInt8(ascii: ".") })
        else { throw OAuthError("invalid_target", "resource names no valid mini-app id") }
        guard let audience = r.audience, (1...256).contains(audience.count) else {
            throw OAuthError.invalidRequest("audience is required for a mini-app token (1-256 characters)")
        }
        let scopes = (r.scope ?? "").split(separator: " ").map(String.init)
        guard scopes.count <= 50, scopes.allSatisfy({ $0.count <= 256 }) else {
            throw OAuthError.invalidRequest("scope holds at most 50 scopes of at most 256 characters")
        }
        return .miniAppToken(
            subject: claims.subject, miniAppID: miniAppID,
            request: AccessTokenRequest(audience: audience, scopes: scopes))
    }
}
