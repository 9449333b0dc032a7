import Foundation

/// Mints mini-app access tokens as ES256 JWTs with the tenant's newest active signing
/// key (the same ``KeyRing`` that signs the gateway's own access tokens, so the tenant's
/// JWKS verifies them).
public struct SigningKeyTokenMinter: MiniAppTokenMinter {
    private let keys: KeyRing
    private let issuer: @Sendable (String) -> String
    private let now: @Sendable () -> Date

    /// - Parameter issuer: the issuer (`iss`) of a tenant id.
    public init(
        keys: KeyRing, issuer: @escaping @Sendable (String) -> String, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.keys = keys
        self.issuer = issuer
        self.now = now
    }

    public func mint(
        tenant: Tenant, subject: String, miniAppID: String, audience: String, scopes: [String], lifetime: Duration
    ) async throws -> MintedToken {
        let key = try await keys.signingKey(tenantID: tenant.id)
        let seconds = min(max(lifetime.components.seconds, 1), MiniAppAccessTokenService.maxLifetime.components.seconds)
        let iat = Int64(now().timeIntervalSince1970)
        let exp = iat + seconds
        let jti = Base64URL.random(byteCount: 16)
        let claims: [String: JSONValue] = [
            "iss": .string(issuer(tenant.id)), "sub": .string(subject), "aud": .string(audience),
            "azp": .string(miniAppID), "scope": .string(scopes.joined(separator: " ")),
            "iat": .number(Double(iat)), "exp": .number(Double(exp)),
            "jti": .string(jti), "tenant": .string(tenant.id),
        ]
        let token = try JWS.sign(claims: claims, typ: "at+jwt", signingKey: key)
        return MintedToken(token: token, jti: jti, validUntil: Date(timeIntervalSince1970: TimeInterval(exp)))
    }
}
