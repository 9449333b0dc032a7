import Foundation

/// Verifies access tokens of one tenant: ES256 signature by an active key of THAT tenant,
/// `typ: at+jwt`, `iss` = the tenant's issuer, `aud`, `exp` (60 s skew), `tenant`, not revoked,
/// and the DPoP proof when bound. Signature results are memoised (``VerifiedTokenMemo``).
public struct TokenVerifier: Sendable {
    /// Allowed clock skew on `exp`/`iat`.
    public static let skew: TimeInterval = 60
    let keys: KeyRing
    let revoked: RevokedTokens
    let memo: VerifiedTokenMemo?
    let now: @Sendable () -> Date

    public init(
        keys: KeyRing, revoked: RevokedTokens, memo: VerifiedTokenMemo?, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.keys = keys
        self.revoked = revoked
        self.memo = memo
        self.now = now
    }

    /// Full verification for an API call.
    ///
    /// The revocation lookup fails OPEN: when the revocation store (Redis) cannot answer,
    /// a token whose signature, issuer, type and expiry verify is accepted, so a Redis
    /// outage does not take the whole API down; the exposure is bounded by the access-token
    /// lifetime and the failure is counted (`gateway_cache_errors_total`).
    public func verify(_ token: String, issuer: String, tenantID: String) async throws -> AccessTokenClaims {
        let claims = try await verifySignatureAndClaims(token, issuer: issuer, tenantID: tenantID)
        let isRevoked = (try? await revoked.isRevoked(tenantID: tenantID, jti: claims.jti)) ?? false
        if isRevoked { throw TokenRejection.invalidToken("the access token was revoked") }
        return claims
    }

    /// The claims of `token` when this process can accept it without suspending: its
    /// signature verified before (memoised), issued by `issuer` for `tenantID`, unexpired,
    /// and known not to be revoked (a complete revocation mirror). nil means "ask
    /// ``verify(_:issuer:tenantID:)``", never "refused".
    public func acceptedInMemory(_ token: String, issuer: String, tenantID: String) -> AccessTokenClaims? {
        let current = now()
        guard let memo, let hit = memo.get(token, now: current), (try? Self.check(hit, issuer, tenantID, current)) != nil,
            hit.keyID.map({ keys.isPublished(tenantID: tenantID, kid: $0) == true }) ?? true,
            revoked.knownRevoked(tenantID: tenantID, jti: hit.jti) == false
        else { return nil }
        return hit
    }

    /// Everything but the revocation check (memoised).
    public func verifySignatureAndClaims(
        _ token: String, issuer: String, tenantID: String
    ) async throws -> AccessTokenClaims {
        let current = now()
        // A memoised token holds only while the key that signed it is published (a key retired
        // at once refuses its tokens at once); a ring that has not loaded the tenant verifies afresh.
        if let memo, let hit = memo.get(token, now: current),
            let published = hit.keyID.map({ keys.isPublished(tenantID: tenantID, kid: $0) }) ?? true
        {
            guard published else {
                throw TokenRejection.invalidToken("the access token was not signed by a key of this tenant")
            }
            try Self.check(hit, issuer, tenantID, current)
            return hit
        }
        let (c, kid) = try await signedClaims(token, tenantID: tenantID)
        guard let iss = c["iss"]?.stringValue, let sub = c["sub"]?.stringValue,
            let clientID = c["client_id"]?.stringValue,
            let tenant = c["tenant"]?.stringValue, let jti = c["jti"]?.stringValue, let exp = c["exp"]?.int64Value,
            let iat = c["iat"]?.int64Value
        else { throw TokenRejection.invalidToken("the access token lacks required claims") }
        guard iss == issuer, tenant == tenantID else {
            throw TokenRejection.invalidToken("the access token was issued by another tenant")
        }
        let audience = TokenService.audience(issuer: issuer)
        let audOK =
            c["aud"]?.stringValue == audience
            || (c["aud"].flatMap { if case .array(let a) = $0 { a.contains(.string(audience)) } else { false } }
                ?? false)
        guard audOK else { throw TokenRejection.invalidToken("the access token is for another audience") }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(exp))
        guard expiresAt.addingTimeInterval(Self.skew) > current else {
            throw TokenRejection.invalidToken("the access token expired")
        }
        let claims = AccessTokenClaims(
            issuer: iss, subject: sub, clientID: clientID, tenantID: tenant, scope: c["scope"]?.stringValue ?? "",
            jti: jti,
            issuedAt: Date(timeIntervalSince1970: TimeInterval(iat)), expiresAt: expiresAt,
            dpopJKT: c["cnf"]?.objectValue?["jkt"]?.stringValue, keyID: kid,
            authTime: c["auth_time"]?.int64Value.map { Date(timeIntervalSince1970: TimeInterval($0)) })
        memo?.put(token, claims, now: current)
        return claims
    }

    /// A memoised token's claims against this request: same issuer and tenant, unexpired.
    private static func check(_ hit: AccessTokenClaims, _ issuer: String, _ tenantID: String, _ now: Date) throws {
        guard hit.issuer == issuer, hit.tenantID == tenantID else {
            throw TokenRejection.invalidToken("the access token was issued by another tenant")
        }
        guard hit.expiresAt.addingTimeInterval(Self.skew) > now else {
            throw TokenRejection.invalidToken("the access token expired")
        }
    }

    /// A mini-app access token of this tenant (`azp` = mini-app id, any audience), checked
    /// like an access token: signature by an active key of the tenant, issuer, expiry and
    /// revocation (failing open like ``verify(_:issuer:tenantID:)``).
    public func verifyMiniAppToken(_ token: String, issuer: String, tenantID: String) async throws -> MiniAppTokenClaims
    {
        let c = try await signedClaims(token, tenantID: tenantID).claims
        guard let iss = c["iss"]?.stringValue, let sub = c["sub"]?.stringValue, let azp = c["azp"]?.stringValue,
            c["client_id"] == nil,
            let aud = c["aud"]?.stringValue, let tenant = c["tenant"]?.stringValue, let jti = c["jti"]?.stringValue,
            let exp = c["exp"]?.int64Value, let iat = c["iat"]?.int64Value
        else { throw TokenRejection.invalidToken("not a mini-app access token") }
        guard iss == issuer, tenant == tenantID else {
            throw TokenRejection.invalidToken("the token was issued by another tenant")
        }
        let expiresAt = try await requireLive(exp: exp, jti: jti, tenantID: tenantID)
        return MiniAppTokenClaims(
            issuer: iss, subject: sub, miniAppID: azp, audience: aud, scope: c["scope"]?.stringValue ?? "", jti: jti,
            issuedAt: Date(timeIntervalSince1970: TimeInterval(iat)), expiresAt: expiresAt)
    }

    /// The expiry of a token with `exp` and `jti`, unless it expired or was revoked
    /// (a revocation store that cannot be read fails open, as for access tokens).
    func requireLive(exp: Int64, jti: String, tenantID: String) async throws -> Date {
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(exp))
        guard expiresAt > now() else { throw TokenRejection.invalidToken("the token expired") }
        if (try? await revoked.isRevoked(tenantID: tenantID, jti: jti)) ?? false {
            throw TokenRejection.invalidToken("the token was revoked")
        }
        return expiresAt
    }

    /// An ID token this tenant issued, as an `id_token_hint` (OpenID Connect RP-Initiated
    /// Logout §2): `typ: JWT` (access and mini-app tokens are `at+jwt`), signed by an active
    /// key of the tenant, `iss` = the tenant's issuer, one audience, and none of the claims
    /// only access tokens carry. Expiry is NOT checked: an expired ID token is a valid hint.
    public func verifyIDTokenHint(_ token: String, issuer: String, tenantID: String) async throws -> IDTokenHintClaims {
        let c = try await signedClaims(token, tenantID: tenantID, types: ["jwt"], algorithms: [.es256, .rs256]).claims
        guard c["iss"]?.stringValue == issuer else {
            throw TokenRejection.invalidToken("the ID token was issued by another issuer")
        }
        guard c["client_id"] == nil, c["scope"] == nil, c["tenant"] == nil, c["cnf"] == nil else {
            throw TokenRejection.invalidToken("not an ID token")
        }
        let audience: String? =
            switch c["aud"] {
            case .string(let aud)?: aud
            case .array(let list)? where list.count == 1: list[0].stringValue
            default: nil
            }
        guard let sub = c["sub"]?.stringValue, let audience, c["iat"]?.int64Value != nil else {
            throw TokenRejection.invalidToken("the ID token lacks required claims")
        }
        if let azp = c["azp"], azp.stringValue != audience {
            throw TokenRejection.invalidToken("the ID token's azp is not its audience")
        }
        return IDTokenHintClaims(subject: sub, clientID: audience, sessionID: c["sid"]?.stringValue)
    }

    /// The payload of a JWT of one of `types` (lower case), signed with one of `algorithms`
    /// (access tokens: ES256 only; ID tokens: also RS256), whose signature verifies with an
    /// published key of `tenantID` of that algorithm, and that key's `kid`.
    func signedClaims(_ token: String, tenantID: String, types: Set<String> = ["at+jwt", "application/at+jwt"],
                              algorithms: Set<SigningKey.Algorithm> = [.es256]) async throws
        -> (claims: [String: JSONValue], kid: String)
    {
        let parsed: JWS.Parsed
        do { parsed = try JWS.parse(token) } catch {
            throw TokenRejection.invalidToken("the access token is malformed")
        }
        guard let alg = parsed.header["alg"]?.stringValue.flatMap(SigningKey.Algorithm.init(rawValue:)),
            algorithms.contains(alg)
        else {
            throw TokenRejection.invalidToken("unsupported token algorithm")
        }
        guard let typ = parsed.header["typ"]?.stringValue?.lowercased(), types.contains(typ) else {
            throw TokenRejection.invalidToken("the token is not of the expected type (typ)")
        }
        guard case .object(let claims)? = try? JSONValue.decode(parsed.payload) else {
            throw TokenRejection.invalidToken("the access token lacks required claims")
        }
        guard let kid = parsed.header["kid"]?.stringValue,
            let key = try await keys.verificationKey(tenantID: tenantID, kid: kid)
        else {
            throw TokenRejection.invalidToken("the access token was not signed by a key of this tenant")
        }
        do { try JWS.verify(parsed, key: key, accepted: algorithms) } catch {
            throw TokenRejection.invalidToken("bad token signature")
        }
        return (claims, kid)
    }
}

/// The claims of a verified mini-app access token.
public struct MiniAppTokenClaims: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    /// `azp`: the mini app the token was issued for.
    public var miniAppID: String
    public var audience: String
    public var scope: String
    public var jti: String
    public var issuedAt: Date
    public var expiresAt: Date
}

/// What an `id_token_hint` names: the user, the client it was issued to, its login session.
public struct IDTokenHintClaims: Sendable, Equatable {
    public var subject: String
    /// `aud`: the client the ID token was issued to.
    public var clientID: String
    /// `sid`: nil in ID tokens from before login sessions.
    public var sessionID: String?
}
