import Foundation
import Synchronization

/// Accepts access tokens of issuers a tenant trusts (`gatewayctl issuer trust`) on the
/// tenant's API like its own: an RFC 9068 or plain JWT, validated by ``ExternalJWTValidator``
/// against the issuer's key set, its subject linked to a local user (created on first use,
/// see ``IdentityLinker``), then checked against the tenant's revocations like the gateway's
/// tokens. Verified claims are memoised until `exp` (at most five minutes); the tenant's
/// trusted-issuer list is re-read at most every five seconds, so `issuer untrust` takes effect
/// within that time on every replica, memoised tokens included.
public struct TrustedTokenVerifier: Sendable {
    /// How long a tenant's trusted-issuer list is reused.
    public static let listLifetime: Duration = .seconds(5)
    let store: any FederationStore
    let issuers: UpstreamIssuers
    let validator: ExternalJWTValidator
    let linker: IdentityLinker
    let revoked: RevokedTokens
    let memo = VerifiedTokenMemo()
    private let lists = ListCache()
    let now: @Sendable () -> Date

    public init(store: any FederationStore, issuers: UpstreamIssuers, validator: ExternalJWTValidator, linker: IdentityLinker, revoked: RevokedTokens,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.issuers = issuers
        self.validator = validator
        self.linker = linker
        self.revoked = revoked
        self.now = now
    }

    /// The trust of `issuer` by `tenantID`, nil when it is not trusted.
    public func trust(tenantID: String, issuer: String) async throws -> TrustedIssuer? {
        if let list = lists.get(tenantID) { return list.first { $0.issuer == issuer } }
        let list = try await store.trustedIssuers(tenantID: tenantID)
        lists.put(tenantID, list)
        return list.first { $0.issuer == issuer }
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
            guard hit.expiresAt.addingTimeInterval(TokenVerifier.skew) > current else { throw TokenRejection.invalidToken("the access token expired") }
            claims = hit
        } else {
            claims = try await verifyAndLink(token, trusted: trusted, now: current)
            memo.put(token, claims, now: current)
        }
        if (try? await revoked.isRevoked(tenantID: tenantID, jti: claims.jti)) ?? false { throw TokenRejection.invalidToken("the access token was revoked") }
        return claims
    }

    private func verifyAndLink(_ token: String, trusted: TrustedIssuer, now: Date) async throws -> AccessTokenClaims {
        do {
            let jwksURI: String
            if let configured = trusted.jwksURI {
                jwksURI = configured
            } else {
                jwksURI = try await issuers.metadata(tenantID: trusted.tenantID, issuer: trusted.issuer).jwksURI
            }
            let c = try await validator.validate(token, tenantID: trusted.tenantID, expecting: .init(issuer: trusted.issuer, audience: trusted.audience, jwksURI: jwksURI))
            let user = try await linker.localUser(tenantID: trusted.tenantID, issuer: trusted.issuer, claims: c, subjectClaim: trusted.subjectClaim)
            let scope: String = switch c["scope"] ?? c["scp"] {
            case .string(let s)?: s
            case .array(let list)?: list.compactMap(\.stringValue).joined(separator: " ")
            default: ""
            }
            return AccessTokenClaims(issuer: trusted.issuer, subject: user.subject,
                                     clientID: c["client_id"]?.stringValue ?? c["azp"]?.stringValue ?? trusted.audience,
                                     tenantID: trusted.tenantID, scope: scope, jti: c["jti"]?.stringValue ?? Base64URL.sha256(token),
                                     issuedAt: c["iat"]?.doubleValue.map(Date.init(timeIntervalSince1970:)) ?? now,
                                     expiresAt: Date(timeIntervalSince1970: c["exp"]?.doubleValue ?? 0),
                                     dpopJKT: c["cnf"]?.objectValue?["jkt"]?.stringValue)
        } catch FederationError.tokenRejected(let reason) {
            throw TokenRejection.invalidToken("the access token was rejected: \(reason)")
        } catch FederationError.userDisabled {
            throw TokenRejection.invalidToken("this account is disabled")
        }
    }

    /// The unverified `iss` of a JWT (to pick the verifier; never trusted by itself).
    public static func claimedIssuer(_ token: String) -> String? {
        guard let parsed = try? JWS.parse(token), case .object(let claims)? = try? JSONValue.decode(parsed.payload) else { return nil }
        return claims["iss"]?.stringValue
    }

    /// Trusted-issuer lists by tenant, each for ``TrustedTokenVerifier/listLifetime``.
    final class ListCache: Sendable {
        private let entries = Mutex<[String: (until: ContinuousClock.Instant, list: [TrustedIssuer])]>([:])

        func get(_ tenantID: String) -> [TrustedIssuer]? {
            entries.withLock { entries in
                guard let entry = entries[tenantID], entry.until > .now else { return nil }
                return entry.list
            }
        }

        func put(_ tenantID: String, _ list: [TrustedIssuer]) {
            entries.withLock { entries in
                if entries.count > 10_000 { entries.removeAll() }
                entries[tenantID] = (until: .now + TrustedTokenVerifier.listLifetime, list: list)
            }
        }
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
            guard let foreign = TrustedTokenVerifier.claimedIssuer(token), foreign != issuer else { throw rejection }
            return try await trusted.verify(token, claimedIssuer: foreign, tenantID: tenantID)
        }
    }
}
