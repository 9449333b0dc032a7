import Foundation
import Synchronization

/// Accepts access tokens of issuers a tenant trusts (`gatewayctl issuer trust`) on the
/// tenant's API like its own: an RFC 9068 or plain JWT, validated by ``ExternalJWTValidator``
/// against the issuer's key set, its subject linked to a local user (created on first use,
/// see ``IdentityLinker``), then checked against the tenant's revocations like the gateway's
/// tokens; an issuer's opaque tokens by RFC 7662 introspection when the trust allows it.
/// Verified JWT claims, with the local subject they are linked to, are memoised for at most
/// ``memoLifetime``, and the tenant's trusted-issuer list is re-read at most every
/// ``listLifetime``: `issuer untrust`, `user unlink` and `user delete` take effect within
/// five seconds on every replica, memoised tokens included.
public struct TrustedTokenVerifier: Sendable {
    /// How long a tenant's trusted-issuer list is reused.
    public static let listLifetime: Duration = .seconds(5)
    /// How long a verified token's claims and link are reused (seconds): a signature check and
    /// a link lookup per token every five seconds, not per request.
    public static let memoLifetime: TimeInterval = 5
    let store: any FederationStore
    let issuers: UpstreamIssuers
    let validator: ExternalJWTValidator
    let linker: IdentityLinker
    let revoked: RevokedTokens
    /// Introspection answers, shared by the replicas.
    let cache: any Cache
    let memo = VerifiedTokenMemo(maxAge: TrustedTokenVerifier.memoLifetime)
    private let lists: ShortLivedMemo<[TrustedIssuer]>
    let now: @Sendable () -> Date

    public init(
        store: any FederationStore, issuers: UpstreamIssuers, validator: ExternalJWTValidator, linker: IdentityLinker,
        revoked: RevokedTokens,
        cache: any Cache, clock: WallClock = .system
    ) {
        self.store = store
        self.issuers = issuers
        self.validator = validator
        self.linker = linker
        self.revoked = revoked
        self.cache = cache
        self.now = clock.now
        self.lists = ShortLivedMemo(lifetime: Self.listLifetime, now: clock.instant)
    }

    /// The trust of `issuer` by `tenantID`, nil when it is not trusted.
    public func trust(tenantID: String, issuer: String) async throws -> TrustedIssuer? {
        try await trustedIssuers(tenantID: tenantID).first { $0.issuer == issuer }
    }

    /// The tenant's trusted issuers (re-read every ``listLifetime``).
    func trustedIssuers(tenantID: String) async throws -> [TrustedIssuer] {
        try await lists.value(tenantID) { try await store.trustedIssuers(tenantID: tenantID) }
    }

    /// The claims of a token `claimedIssuer` (its unverified `iss`) issued, when the tenant
    /// trusts that issuer and the token verifies. Refusals are ``TokenRejection``s (401); an
    /// issuer whose keys cannot be fetched is ``FederationError/providerUnavailable(_:)``.
    public func verify(_ token: String, claimedIssuer: String, tenantID: String) async throws -> AccessTokenClaims {
        guard let trusted = try await trust(tenantID: tenantID, issuer: claimedIssuer) else {
            throw TokenRejection.invalidToken("the access token was issued by an issuer this tenant does not trust")
        }
        let current = now()
        let claims: AccessTokenClaims
        if let hit = memo.get(token, now: current), hit.tenantID == tenantID, hit.issuer == trusted.issuer {
            guard hit.expiresAt.addingTimeInterval(TokenVerifier.skew) > current else {
                throw TokenRejection.invalidToken("the access token expired")
            }
            claims = hit
        } else {
            claims = try await verifyAndLink(token, trusted: trusted, now: current)
            memo.put(token, claims, now: current)
        }
        return try await notRevoked(claims)
    }

    /// `claims`, unless the tenant revoked the token (failing open like the tenant's own tokens).
    private func notRevoked(_ claims: AccessTokenClaims) async throws -> AccessTokenClaims {
        if (try? await revoked.isRevoked(tenantID: claims.tenantID, jti: claims.jti)) ?? false {
            throw TokenRejection.invalidToken("the access token was revoked")
        }
        return claims
    }

    /// Runs `work`, answering its refusals of the token as ``TokenRejection``s (401).
    private func rejectingAsInvalidToken<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch FederationError.tokenRejected(let reason) {
            throw TokenRejection.invalidToken("the access token was rejected: \(reason)")
        } catch FederationError.userDisabled {
            throw TokenRejection.invalidToken("this account is disabled")
        }
    }

    private func verifyAndLink(_ token: String, trusted: TrustedIssuer, now: Date) async throws -> AccessTokenClaims {
        try await rejectingAsInvalidToken {
            let jwksURI: String
            if let configured = trusted.jwksURI {
                jwksURI = configured
            } else {
                jwksURI = try await issuers.metadata(tenantID: trusted.tenantID, issuer: trusted.issuer).jwksURI
            }
            let c = try await validator.validate(
                token, tenantID: trusted.tenantID,
                expecting: .init(issuer: trusted.issuer, audience: trusted.audience, jwksURI: jwksURI))
            return try await accessClaims(c, token: token, trusted: trusted, now: now)
        }
    }

    /// The access-token claims of a verified external token (JWT claims or an introspection
    /// answer), its subject linked to a local user.
    private func accessClaims(
        _ c: [String: JSONValue], token: String, trusted: TrustedIssuer, now: Date
    ) async throws -> AccessTokenClaims {
        let issuers = self.issuers
        let user = try await linker.localUser(
            tenantID: trusted.tenantID, issuer: trusted.issuer, claims: c, subjectClaim: trusted.subjectClaim
        ) {
            // First sight of this identity: its name and email from the issuer's UserInfo.
            try? await issuers.userInfo(tenantID: trusted.tenantID, issuer: trusted.issuer, accessToken: token)
        }
        let claimedValue: [String] = (c["scope"] ?? c["scp"])?.strings ?? []
        let claimed = claimedValue.joined(separator: " ").split(separator: " ").map(String.init)
        let scope = APIScope.trustedIssuerScope(claimed: claimed)
        return AccessTokenClaims(
            issuer: trusted.issuer, subject: user.subject,
            clientID: c["client_id"]?.stringValue ?? c["azp"]?.stringValue ?? trusted.audience,
            tenantID: trusted.tenantID, scope: scope, jti: c["jti"]?.stringValue ?? Base64URL.sha256(token),
            issuedAt: c["iat"]?.doubleValue.map(Date.init(timeIntervalSince1970:)) ?? now,
            expiresAt: Date(timeIntervalSince1970: c["exp"]?.doubleValue ?? 0),
            dpopJKT: c["cnf"]?.objectValue?["jkt"]?.stringValue)
    }

    /// The claims of an opaque (non-JWT) token, found by RFC 7662 introspection at the
    /// tenant's trusted issuers that allow it (at most three, in order). An answer is kept in
    /// the shared cache until the token's `exp`, at most the issuer's `cacheSeconds`; an
    /// inactive answer for at most a minute. nil when no trusted issuer introspects (the
    /// caller keeps its own refusal).
    public func verifyOpaque(_ token: String, tenantID: String) async throws -> AccessTokenClaims? {
        let candidates = try await trustedIssuers(tenantID: tenantID).filter { $0.introspection != nil }
        guard !candidates.isEmpty else { return nil }
        guard token.utf8.count <= 4096 else { throw TokenRejection.invalidToken("the access token is too long") }
        let current = now()
        let key = "oidc:introspect:\(tenantID):" + Base64URL.sha256(token)
        var found: (TrustedIssuer, [String: JSONValue])?
        if let bytes = try? await cache.get(key),
            let entry = try? JSONDecoder().decode(IntrospectedToken.self, from: Data(bytes))
        {
            guard let issuer = entry.issuer, let trusted = candidates.first(where: { $0.issuer == issuer }),
                let claims = entry.claims
            else {
                throw TokenRejection.invalidToken("the access token is not active")
            }
            found = (trusted, claims)
        } else {
            for trusted in candidates.prefix(3) {
                guard let claims = try await introspect(token, at: trusted, now: current) else { continue }
                found = (trusted, claims)
                let remaining = (claims["exp"]?.doubleValue ?? 0) - current.timeIntervalSince1970
                let lifetime = min(remaining, Double(trusted.introspection?.cacheSeconds ?? 0))
                if lifetime >= 1,
                    let bytes = try? JSONEncoder().encode(IntrospectedToken(issuer: trusted.issuer, claims: claims))
                {
                    try? await cache.set(key, Array(bytes), ttl: .seconds(Int64(lifetime)))
                }
                break
            }
            if found == nil, let bytes = try? JSONEncoder().encode(IntrospectedToken(issuer: nil, claims: nil)) {
                let lifetime = min(60, candidates.map { $0.introspection?.cacheSeconds ?? 60 }.min() ?? 60)
                try? await cache.set(key, Array(bytes), ttl: .seconds(Int64(lifetime)))
            }
        }
        guard let (trusted, claims) = found else { throw TokenRejection.invalidToken("the access token is not active") }
        guard (claims["exp"]?.doubleValue ?? 0) + TokenVerifier.skew > current.timeIntervalSince1970 else {
            throw TokenRejection.invalidToken("the access token expired")
        }
        return try await notRevoked(
            try await rejectingAsInvalidToken {
                try await accessClaims(claims, token: token, trusted: trusted, now: current)
            })
    }

    /// One RFC 7662 call (client_secret_basic); the answer's claims when the token is active
    /// for this tenant (`iss`, when present, is the issuer; `aud` must contain the audience;
    /// `exp` is required), nil when it is not.
    private func introspect(_ token: String, at trusted: TrustedIssuer, now: Date) async throws -> [String: JSONValue]?
    {
        guard let settings = trusted.introspection else { return nil }
        let metadata = try await issuers.metadata(tenantID: trusted.tenantID, issuer: trusted.issuer)
        guard let endpoint = metadata.introspectionEndpoint else {
            throw FederationError.providerMisconfigured("the discovery document has no introspection_endpoint")
        }
        let answer: [String: JSONValue]
        do {
            answer = try await issuers.post(
                tenantID: trusted.tenantID, url: endpoint,
                form: [("token", token), ("token_type_hint", "access_token")],
                clientID: settings.clientID, secret: settings.clientSecret)
        } catch FederationError.providerRefused(let reason) {
            throw FederationError.providerMisconfigured("introspection refused the gateway's credentials (\(reason))")
        }
        guard answer["active"] == .bool(true) else { return nil }
        if let iss = answer["iss"], iss.stringValue != trusted.issuer { return nil }
        guard (answer["aud"]?.strings ?? []).contains(trusted.audience), let exp = answer["exp"]?.doubleValue,
            exp > now.timeIntervalSince1970 - TokenVerifier.skew
        else { return nil }
        return answer
    }

    /// A cached introspection answer (issuer and claims nil: inactive).
    struct IntrospectedToken: Codable {
        var issuer: String?
        var claims: [String: JSONValue]?
    }

    /// The unverified `iss` of a JWT (to pick the verifier; never trusted by itself).
    public static func claimedIssuer(_ token: String) -> String? {
        guard let parsed = try? JWS.parse(token), case .object(let claims)? = try? JSONValue.decode(parsed.payload)
        else { return nil }
        return claims["iss"]?.stringValue
    }
}

/// The API's bearer tokens: the tenant's own first (the hot path, unchanged), then, only
/// when a token names another issuer, the tenant's trusted issuers.
public struct APITokenVerifier: Sendable {
    public let local: TokenVerifier
    public let trusted: TrustedTokenVerifier

    public init(local: TokenVerifier, trusted: TrustedTokenVerifier) {
        self.local = local
        self.trusted = trusted
    }

    public func verify(_ token: String, issuer: String, tenantID: String) async throws -> AccessTokenClaims {
        do {
            return try await local.verify(token, issuer: issuer, tenantID: tenantID)
        } catch let rejection as TokenRejection {
            if let foreign = TrustedTokenVerifier.claimedIssuer(token) {
                guard foreign != issuer else { throw rejection }
                return try await trusted.verify(token, claimedIssuer: foreign, tenantID: tenantID)
            }
            // Not a JWT: an opaque token, if a trusted issuer introspects them.
            guard let claims = try await trusted.verifyOpaque(token, tenantID: tenantID) else { throw rejection }
            return claims
        }
    }
}
