import Foundation

/// Validates a JWT issued by an external issuer (an upstream ID token, a trusted issuer's
/// access token): compact JWS, `alg` in the allow-list (RS256, ES256: `none`, HS* and any
/// other are refused before a key is looked up), the header's `kid` in the issuer's key set
/// and a signature by that key with that key's algorithm, `iss` exactly, `aud` containing the
/// expected audience (with several audiences `azp` must be that audience), `exp` and `nbf`
/// with 60 s skew, and the `nonce` when one is expected.
public struct ExternalJWTValidator: Sendable {
    /// The algorithms accepted from external issuers.
    public static let algorithms: Set<SigningKey.Algorithm> = [.rs256, .es256]
    let issuers: UpstreamIssuers
    let now: @Sendable () -> Date

    public init(issuers: UpstreamIssuers, now: @escaping @Sendable () -> Date = Date.init) {
        self.issuers = issuers
        self.now = now
    }

    /// What one validation expects.
    public struct Expectation: Sendable {
        public var issuer: String
        public var audience: String
        public var jwksURI: String
        /// The nonce the ID token must carry (sign-in); nil: not checked (access tokens).
        public var nonce: String?
        /// Accepted `typ` header values (lower case); nil: any.
        public var types: Set<String>?

        public init(issuer: String, audience: String, jwksURI: String, nonce: String? = nil, types: Set<String>? = nil)
        {
            self.issuer = issuer
            self.audience = audience
            self.jwksURI = jwksURI
            self.nonce = nonce
            self.types = types
        }
    }

    /// The verified claims, or ``FederationError/tokenRejected(_:)`` saying why not.
    public func validate(
        _ token: String, tenantID: String, expecting e: Expectation
    ) async throws -> [String: JSONValue] {
        let parsed: JWS.Parsed
        do { parsed = try JWS.parse(token) } catch { throw FederationError.tokenRejected("not a compact JWS") }
        guard let algName = parsed.header["alg"]?.stringValue, let alg = SigningKey.Algorithm(rawValue: algName),
            Self.algorithms.contains(alg)
        else {
            throw FederationError.tokenRejected(
                "algorithm \(parsed.header["alg"]?.stringValue ?? "(none)") is not accepted")
        }
        if let types = e.types, !types.contains(parsed.header["typ"]?.stringValue?.lowercased() ?? "") {
            throw FederationError.tokenRejected("unexpected token type (typ)")
        }
        guard case .object(let claims)? = try? JSONValue.decode(parsed.payload) else {
            throw FederationError.tokenRejected("the payload is not a JSON object")
        }
        guard claims["iss"]?.stringValue == e.issuer else {
            throw FederationError.tokenRejected("issued by another issuer")
        }
        let audiences = claims["aud"]?.strings ?? []
        guard audiences.contains(e.audience) else { throw FederationError.tokenRejected("issued for another audience") }
        if audiences.count > 1, let azp = claims["azp"]?.stringValue, azp != e.audience {
            throw FederationError.tokenRejected("issued to another party (azp)")
        }
        let current = now().timeIntervalSince1970
        guard let exp = claims["exp"]?.doubleValue else { throw FederationError.tokenRejected("no expiry (exp)") }
        guard exp + TokenVerifier.skew > current else { throw FederationError.tokenRejected("expired") }
        if let nbf = claims["nbf"]?.doubleValue, nbf - TokenVerifier.skew > current {
            throw FederationError.tokenRejected("not valid yet (nbf)")
        }
        if let nonce = e.nonce, claims["nonce"]?.stringValue != nonce {
            throw FederationError.tokenRejected("the nonce does not match this sign-in")
        }
        guard let kid = parsed.header["kid"]?.stringValue, !kid.isEmpty, kid.count <= 256 else {
            throw FederationError.tokenRejected("no key id (kid)")
        }
        guard let key = try await issuers.key(tenantID: tenantID, jwksURI: e.jwksURI, kid: kid) else {
            throw FederationError.tokenRejected("key \(kid) is not in the issuer's key set")
        }
        do { try JWS.verify(parsed, key: key, accepted: Self.algorithms) } catch {
            throw FederationError.tokenRejected("bad signature")
        }
        return claims
    }
}
