import Foundation

/// A token request's grant as the token endpoint received it (RFC 6749 §4.1.3, §6).
public struct TokenGrant: Sendable, Equatable {
    /// `grant_type`.
    public var type: String?
    public var code: String?
    public var redirectURI: String?
    public var codeVerifier: String?
    public var refreshToken: String?
    /// `scope` (client credentials).
    public var scope: String?

    public init(
        type: String?, code: String? = nil, redirectURI: String? = nil, codeVerifier: String? = nil,
        refreshToken: String? = nil, scope: String? = nil
    ) {
        self.scope = scope
        self.type = type
        self.code = code
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
        self.refreshToken = refreshToken
    }
}

/// What introspection (RFC 7662) found a token to be.
public enum Introspection: Sendable, Equatable {
    /// Not a live token of this tenant (unknown, expired, revoked, foreign or malformed).
    case inactive
    /// A live access token this tenant's authorization server issued.
    case accessToken(AccessTokenClaims)
    /// A live mini-app access token of this tenant.
    case miniAppToken(MiniAppTokenClaims)
}

extension AuthorizationServer {
    /// Answers a token request by its grant type: `authorization_code`, `refresh_token` and
    /// `client_credentials` (``ClientCredentials``);
    /// the tokens are bound to `dpopJKT` when given.
    /// - Throws: ``OAuthError`` `invalid_request` for a missing grant_type, code or refresh
    ///   token, `unsupported_grant_type` for any other grant, and the grants' own errors.
    public func token(
        for grant: TokenGrant, client: OAuthClient, issuer: String, dpopJKT: String?
    ) async throws -> TokenResponse {
        switch grant.type {
        case "authorization_code":
            guard let code = grant.code, !code.isEmpty else { throw OAuthError.invalidRequest("code is required") }
            return try await tokens.exchangeCode(
                issuer: issuer, client: client, code: code, redirectURI: grant.redirectURI,
                verifier: grant.codeVerifier, dpopJKT: dpopJKT)
        case "refresh_token":
            guard let refresh = grant.refreshToken, !refresh.isEmpty else {
                throw OAuthError.invalidRequest("refresh_token is required")
            }
            return try await tokens.refresh(issuer: issuer, client: client, refreshToken: refresh, dpopJKT: dpopJKT)
        case ClientCredentials.grantType:
            let scopes = try ClientCredentials.grantedScopes(for: client, requested: grant.scope)
            return try await tokens.senderToken(issuer: issuer, client: client, scopes: scopes)
        case nil:
            throw OAuthError.invalidRequest("grant_type is required")
        default:
            throw OAuthError.unsupportedGrantType(
                "grant_type must be authorization_code, refresh_token, client_credentials or token exchange")
        }
    }

    /// The key thumbprint a DPoP proof sent to an authorization-server endpoint at `url`
    /// binds the answer to: nil without a proof, unless `required` (clients registered with
    /// `--dpop`). With `nonce` (the tenant's validator, for clients registered with
    /// `--dpop-nonce`) the proof must carry a valid server nonce.
    /// - Throws: ``OAuthError`` `invalid_dpop_proof`, or ``TokenRejection/dpopNonceRequired``
    ///   for the caller to answer `use_dpop_nonce` with a fresh nonce.
    public func proofThumbprint(
        _ proof: String?, url: String, required: Bool, nonce: (@Sendable (String) -> Bool)? = nil
    ) async throws -> String? {
        guard let proof else {
            if required { throw OAuthError.invalidDPoPProof("this client must present a DPoP proof") }
            return nil
        }
        do {
            return try await dpop.verify(proof: proof, method: "POST", url: url, accessToken: nil, nonce: nonce)
        } catch let rejection as TokenRejection where rejection != .dpopNonceRequired {
            throw OAuthError.invalidDPoPProof(rejection.detail)
        }
    }

    /// What `token` is for this tenant: one of its live access tokens first, else one of
    /// its live mini-app access tokens, else inactive. Never throws: any failure to verify
    /// is "inactive" (RFC 7662 §2.2).
    public func introspect(_ token: String, issuer: String, tenantID: String) async -> Introspection {
        let now = clock.now()
        if let claims = try? await verifier.verify(token, issuer: issuer, tenantID: tenantID), claims.expiresAt > now {
            return .accessToken(claims)
        }
        if let miniApp = try? await verifier.verifyMiniAppToken(token, issuer: issuer, tenantID: tenantID) {
            return .miniAppToken(miniApp)
        }
        return .inactive
    }
}
