import Crypto
import Foundation

/// A successful token-endpoint answer.
public struct TokenResponse: Sendable, Equatable {
    public var accessToken: String
    /// `Bearer`, or `DPoP` when bound.
    public var tokenType: String
    public var expiresIn: Int
    public var refreshToken: String
    public var idToken: String
    public var scope: String
}

/// Issues RFC 9068 access tokens, OIDC id_tokens and rotating refresh tokens.
///
/// Refresh rotation has no grace period: of concurrent uses of one refresh token exactly
/// one rotates it; every other use is a reuse, which revokes the whole family (including
/// the winner's new tokens), as RFC 9700 §4.14.2 recommends for public clients.
public struct TokenService: Sendable {
    let keys: KeyRing
    let refreshStore: any RefreshTokenStore
    let users: any UserStore
    let codes: AuthorizationCodes
    let revoked: RevokedTokens
    let now: @Sendable () -> Date

    public init(
        keys: KeyRing, refreshStore: any RefreshTokenStore, users: any UserStore, codes: AuthorizationCodes,
        revoked: RevokedTokens, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.keys = keys
        self.refreshStore = refreshStore
        self.users = users
        self.codes = codes
        self.revoked = revoked
        self.now = now
    }

    static func hash(_ token: String) -> String {
        Base64URL.sha256(token)
    }

    /// The audience of access tokens: the tenant's mini-app API.
    public static func audience(issuer: String) -> String { issuer + "/v1" }

    /// `authorization_code` grant.
    public func exchangeCode(
        issuer: String, client: OAuthClient, code: String, redirectURI: String?, verifier: String?, dpopJKT: String?
    ) async throws -> TokenResponse {
        guard client.allows(grantType: "authorization_code") else {
            throw OAuthError.unauthorizedClient("this client may not use the authorization_code grant")
        }
        let tenantID = client.tenantID
        let familyID = RandomUUID.lowercased()
        let grant: AuthorizationGrant
        switch try await codes.redeem(code, tenantID: tenantID, producing: familyID) {
        case .granted(let redeemed):
            grant = redeemed
        case .usedBefore(let producedFamily):
            try await revokeFamily(producedFamily, tenantID: tenantID)
            throw OAuthError.invalidGrant("authorization code already used; tokens issued from it are revoked")
        case .unknown:
            throw OAuthError.invalidGrant("authorization code is invalid or expired")
        }
        guard grant.clientID == client.clientID else {
            throw OAuthError.invalidGrant("authorization code was issued to another client")
        }
        // A code from the challenge endpoint saw no redirect: no redirect_uri either.
        guard redirectURI == grant.redirectURI else {
            throw OAuthError.invalidGrant("redirect_uri does not match the authorization request")
        }
        guard let verifier else { throw OAuthError.invalidGrant("code_verifier is required") }
        guard PKCE.isValidVerifier(verifier) else {
            throw OAuthError.invalidGrant("code_verifier must be 43-128 characters of [A-Za-z0-9-._~]")
        }
        guard PKCE.verify(verifier: verifier, challenge: grant.codeChallenge) else {
            throw OAuthError.invalidGrant("code_verifier does not match code_challenge")
        }
        if client.dpopBound, dpopJKT == nil {
            throw OAuthError.invalidDPoPProof("this client must present a DPoP proof")
        }
        if let bound = grant.dpopJKT, bound != dpopJKT {
            throw OAuthError.invalidDPoPProof(
                "the code is bound to a DPoP key: prove the key the authorization challenge was made with")
        }

        let issuedAt = now()
        let refresh = Self.newRefreshToken()
        let family = RefreshFamily(
            familyID: familyID, tenantID: tenantID, clientID: client.clientID, subject: grant.subject,
            scope: grant.scope,
            nonce: grant.nonce, dpopJKT: dpopJKT, createdAt: issuedAt,
            absoluteExpiry: issuedAt.addingTimeInterval(TimeInterval(client.refreshAbsoluteLifetimeSeconds)),
            sessionID: grant.sessionID, authTime: grant.authTime)
        let accessToken = Self.nextAccessToken(client: client, at: issuedAt)
        let user = try await refreshStore.createFamily(
            family, tokenHash: Self.hash(refresh),
            idleExpiry: issuedAt.addingTimeInterval(TimeInterval(client.refreshIdleLifetimeSeconds)),
            accessToken: accessToken)
        return try await issue(
            issuer: issuer, client: client, family: family, refreshToken: refresh, accessToken: accessToken,
            refreshed: false, at: issuedAt, user: user, authentication: (grant.acr, grant.amr))
    }

    /// Tokens for a user the caller has already authenticated another way (token exchange of
    /// a trusted issuer's token, RFC 8693): a new refresh family and login session, as if the
    /// user had just signed in at this client.
    public func issueForSubject(
        issuer: String, client: OAuthClient, subject: String, scope: String, dpopJKT: String?
    ) async throws -> TokenResponse {
        try await issueNewSession(
            issuer: issuer, client: client, subject: subject, scope: scope, authTime: nil, dpopJKT: dpopJKT)
    }

    /// Tokens for a backchannel request the user approved (CIBA §10.1.1): a new refresh family
    /// and login session whose `auth_time` is the approval's.
    public func issueForBackchannel(
        issuer: String, client: OAuthClient, request: BackchannelRequest, subject: String, answer: BackchannelAnswer,
        dpopJKT: String?
    ) async throws -> TokenResponse {
        try await issueNewSession(
            issuer: issuer, client: client, subject: subject, scope: request.scopes.joined(separator: " "),
            authTime: answer.at, dpopJKT: dpopJKT, backchannel: (request, answer))
    }

    /// A new refresh family and login session for `subject` at `client` (`auth_time`: now
    /// unless given), with its first tokens.
    private func issueNewSession(
        issuer: String, client: OAuthClient, subject: String, scope: String, authTime: Date?, dpopJKT: String?,
        backchannel: (request: BackchannelRequest, answer: BackchannelAnswer)? = nil
    ) async throws -> TokenResponse {
        if client.dpopBound, dpopJKT == nil {
            throw OAuthError.invalidDPoPProof("this client must present a DPoP proof")
        }
        let issuedAt = now()
        let refresh = Self.newRefreshToken()
        let family = RefreshFamily(
            familyID: RandomUUID.lowercased(), tenantID: client.tenantID, clientID: client.clientID,
            subject: subject, scope: scope,
            nonce: nil, dpopJKT: dpopJKT, createdAt: issuedAt,
            absoluteExpiry: issuedAt.addingTimeInterval(TimeInterval(client.refreshAbsoluteLifetimeSeconds)),
            sessionID: Base64URL.random(byteCount: 16), authTime: Int64((authTime ?? issuedAt).timeIntervalSince1970))
        let accessToken = Self.nextAccessToken(client: client, at: issuedAt)
        let user = try await refreshStore.createFamily(
            family, tokenHash: Self.hash(refresh),
            idleExpiry: issuedAt.addingTimeInterval(TimeInterval(client.refreshIdleLifetimeSeconds)),
            accessToken: accessToken)
        return try await issue(
            issuer: issuer, client: client, family: family, refreshToken: refresh, accessToken: accessToken,
            refreshed: false, at: issuedAt, user: user, backchannel: backchannel)
    }

    /// `refresh_token` grant: rotation with reuse detection.
    public func refresh(
        issuer: String, client: OAuthClient, refreshToken: String, dpopJKT: String?
    ) async throws -> TokenResponse {
        // Refused before the token is looked at, so it is not burned.
        guard client.allows(grantType: "refresh_token") else {
            throw OAuthError.unauthorizedClient("this client may not use the refresh_token grant")
        }
        // Every refresh token this server issues is ``newRefreshToken()``: anything of another
        // shape (the largest form's 8 KiB of junk) is refused before it is hashed or looked up.
        guard Base64URL.isEncoding(refreshToken, ofByteCount: Self.refreshTokenBytes) else {
            throw OAuthError.invalidGrant("refresh token is invalid, expired or revoked")
        }
        let issuedAt = now()
        let newToken = Self.newRefreshToken()
        let accessToken = Self.nextAccessToken(client: client, at: issuedAt)
        // One store step checks the family's conditions and rotates (one round trip on
        // PostgreSQL; on SQLite a read first, so a token no family holds is refused without the
        // write lock, issue 32).
        let step = try await refreshStore.rotateChecked(
            tokenHash: Self.hash(refreshToken), tenantID: client.tenantID, clientID: client.clientID,
            newHash: Self.hash(newToken),
            now: issuedAt, idleExpiry: issuedAt.addingTimeInterval(TimeInterval(client.refreshIdleLifetimeSeconds)),
            accessToken: accessToken, presentedDPoPJKT: dpopJKT)
        switch step {
        case .held(let family, _):
            // Refused without burning the token: a proof with another key, or the user gone.
            if let bound = family.dpopJKT, bound != dpopJKT {
                throw OAuthError.invalidDPoPProof("refresh token is bound to another DPoP key")
            }
            try await revokeFamily(family.familyID, tenantID: family.tenantID)
            throw OAuthError.invalidGrant("the user is disabled or removed")
        case .rotation(.invalid, _):
            throw OAuthError.invalidGrant("refresh token is invalid, expired or revoked")
        case .rotation(.reused(let family, let tokens), _):
            for token in tokens {
                try await revoked.revoke(tenantID: family.tenantID, jti: token.jti, expiresAt: token.expiresAt)
            }
            throw OAuthError.invalidGrant("refresh token was already used; its family is revoked")
        case .rotation(.rotated(let family), let user):
            if let bound = family.dpopJKT, bound != dpopJKT {
                throw OAuthError.invalidDPoPProof("refresh token is bound to another DPoP key")
            }
            // The user the step read fills the ID token (one store step per refresh).
            return try await issue(
                issuer: issuer, client: client, family: family, refreshToken: newToken, accessToken: accessToken,
                refreshed: true, at: issuedAt, user: user?.subject == family.subject ? user : nil)
        }
    }

    /// RFC 7009: a refresh token revokes its family; an access token is marked revoked.
    /// Unknown or foreign tokens are ignored (the endpoint answers 200 anyway); a failure to
    /// find out (the signing keys unreadable) is thrown, never acknowledged as a revocation.
    public func revoke(token: String, client: OAuthClient, verifier: TokenVerifier, issuer: String) async throws {
        if let family = try await refreshStore.family(ofTokenHash: Self.hash(token)),
            family.tenantID == client.tenantID, family.clientID == client.clientID
        {
            try await revokeFamily(family.familyID, tenantID: client.tenantID)
            return
        }
        let claims: AccessTokenClaims
        do {
            claims = try await verifier.verifySignatureAndClaims(token, issuer: issuer, tenantID: client.tenantID)
        } catch is TokenRejection {
            return  // not an access token of this tenant, or expired: nothing to revoke
        }
        guard claims.clientID == client.clientID else { return }
        try await revoked.revoke(tenantID: client.tenantID, jti: claims.jti, expiresAt: claims.expiresAt)
    }

    /// Revokes a family and its access tokens.
    public func revokeFamily(_ familyID: String, tenantID: String) async throws {
        for token in try await refreshStore.revokeFamily(familyID, now: now()) {
            try await revoked.revoke(tenantID: tenantID, jti: token.jti, expiresAt: token.expiresAt)
        }
    }

    /// Logout: revokes the families `selection` names and their access tokens.
    public func revokeSessions(_ selection: RefreshFamilySelection) async throws {
        for token in try await refreshStore.revokeFamilies(selection, now: now()) {
            try await revoked.revoke(tenantID: selection.tenantID, jti: token.jti, expiresAt: token.expiresAt)
        }
    }

    /// Random bytes in a refresh token.
    static let refreshTokenBytes = 32

    /// A new refresh token: ``refreshTokenBytes`` random bytes, base64url.
    static func newRefreshToken() -> String { Base64URL.random(byteCount: refreshTokenBytes) }

    /// The id and expiry of the access token a grant at `issuedAt` issues, named before the
    /// grant's store write records it.
    static func nextAccessToken(client: OAuthClient, at issuedAt: Date) -> IssuedAccessToken {
        let iat = Int64(issuedAt.timeIntervalSince1970)
        return IssuedAccessToken(
            jti: Base64URL.random(byteCount: 16),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(iat + Int64(client.accessTokenLifetimeSeconds))))
    }

    /// - Parameters:
    ///   - issued: the access token's id and expiry, already recorded with the family.
    ///   - refreshed: an ID token from a refresh carries the original `auth_time` but no
    ///     `nonce` (OpenID Connect Core §12.2: the nonce belonged to the authentication request).
    ///   - known: the family's user when the caller just read it (else it is read here).
    private func issue(
        issuer: String, client: OAuthClient, family: RefreshFamily, refreshToken: String,
        accessToken issued: IssuedAccessToken, refreshed: Bool, at issuedAt: Date, user known: LocalUser? = nil,
        backchannel: (request: BackchannelRequest, answer: BackchannelAnswer)? = nil,
        authentication: (acr: String?, amr: [String]?)? = nil
    ) async throws -> TokenResponse {
        let key = try await keys.signingKey(tenantID: client.tenantID)
        let iat = Int64(issuedAt.timeIntervalSince1970)
        let exp = Int64(issued.expiresAt.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(family.subject), "aud": .string(Self.audience(issuer: issuer)),
            "client_id": .string(client.clientID), "iat": .number(Double(iat)), "exp": .number(Double(exp)),
            "jti": .string(issued.jti), "scope": .string(family.scope), "tenant": .string(client.tenantID),
        ]
        if let jkt = family.dpopJKT { claims["cnf"] = .object(["jkt": .string(jkt)]) }
        if let authTime = family.authTime { claims["auth_time"] = .number(Double(authTime)) }
        let accessToken = try JWS.sign(claims: claims, typ: "at+jwt", signingKey: key)

        var id: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(family.subject), "aud": .string(client.clientID),
            "azp": .string(client.clientID),
            "iat": .number(Double(iat)), "exp": .number(Double(exp)),
            "at_hash": .string(Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8)).prefix(16))),
        ]
        if let authTime = family.authTime { id["auth_time"] = .number(Double(authTime)) }
        if let sessionID = family.sessionID { id["sid"] = .string(sessionID) }
        if !refreshed, let nonce = family.nonce { id["nonce"] = .string(nonce) }
        if let backchannel {
            // CIBA §10.3.1's bindings of the ID token to this request and its refresh token.
            id["urn:openid:params:jwt:claim:auth_req_id"] = .string(backchannel.request.id)
            id["urn:openid:params:jwt:claim:rt_hash"] = .string(
                Base64URL.encode(SHA256.hash(data: Data(refreshToken.utf8)).prefix(16)))
            if let acr = backchannel.answer.acr { id["acr"] = .string(acr) }
            if let amr = backchannel.answer.amr { id["amr"] = .array(amr.map(JSONValue.string)) }
        }
        // How the person signed in (OpenID Connect Core §2): a code exchange's sign-in.
        if let acr = authentication?.acr { id["acr"] = .string(acr) }
        if let amr = authentication?.amr, !amr.isEmpty { id["amr"] = .array(amr.map(JSONValue.string)) }
        let scopes = Set(family.scope.split(separator: " ").map(String.init))
        let user: LocalUser? =
            if let known { known } else { try await users.user(tenantID: client.tenantID, subject: family.subject) }
        // A user disabled between the sign-in and this grant gets nothing: the new family ends too.
        if user?.disabled == true {
            try await revokeFamily(family.familyID, tenantID: client.tenantID)
            throw OAuthError.invalidGrant("the user is disabled or removed")
        }
        if let user {
            if scopes.contains("profile") {
                if let name = user.name { id["name"] = .string(name) }
                if let picture = user.picture { id["picture"] = .string(picture) }
                id["preferred_username"] = .string(user.username)
            }
            if scopes.contains("email"), let email = user.email { id["email"] = .string(email) }
        }
        let idKey = try await keys.signingKey(tenantID: client.tenantID, algorithm: client.idTokenAlgorithm)
        let idToken = try JWS.sign(claims: id, typ: "JWT", signingKey: idKey)
        return TokenResponse(
            accessToken: accessToken, tokenType: family.dpopJKT == nil ? "Bearer" : "DPoP",
            expiresIn: client.accessTokenLifetimeSeconds,
            refreshToken: refreshToken, idToken: idToken, scope: family.scope)
    }
}
