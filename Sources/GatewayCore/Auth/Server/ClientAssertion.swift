import Foundation

/// `private_key_jwt` client authentication (RFC 7523 §2.2 and §3, OpenID Connect Core §9): the
/// client signs a short-lived JWT with a key whose public half it registered (`--jwks`), and
/// sends it as `client_assertion` with `client_assertion_type` =
/// `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`.
public struct ClientAssertion: Sendable {
    /// The only `client_assertion_type`.
    public static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest an assertion may live (`exp` - now); clocks may differ by ``TokenVerifier/skew``.
    static let maxLifetime: TimeInterval = 300

    /// The compact JWT.
    public var jwt: String
    /// Audiences the assertion may name: the token endpoint's URL and the issuer.
    public var audiences: Set<String>

    public init(type: String?, jwt: String, audiences: Set<String>) throws {
        guard type == Self.type else {
            throw OAuthError.invalidClient("client_assertion_type must be \(Self.type)")
        }
        guard jwt.utf8.count <= 8_192 else { throw OAuthError.invalidClient("client_assertion is too large") }
        self.jwt = jwt
        self.audiences = audiences
    }

    /// A checked assertion: who it names and until when its `jti` must not come again.
    struct Checked {
        var clientID: String
        var jti: String
        var expiresAt: Date
    }

    /// The client the assertion names (`iss` = `sub`), before any signature check.
    func claimedClientID() throws -> String {
        guard let parsed = try? JWS.parse(jwt), case .object(let claims)? = try? JSONValue.decode(parsed.payload),
            let issuer = claims["iss"]?.stringValue, claims["sub"]?.stringValue == issuer, !issuer.isEmpty
        else { throw OAuthError.invalidClient("client_assertion must be a JWT whose iss and sub are the client id") }
        return issuer
    }

    /// Verifies the signature with one of `client`'s registered keys (by `kid` when the header
    /// names one) and the claims: `iss` = `sub` = client id, `aud` one of ``audiences``, `exp`
    /// in the future and at most 5 minutes away, `iat` not in the future, a `jti`.
    func check(for client: OAuthClient, now: Date) throws -> Checked {
        try check(clientID: client.clientID, keys: client.assertionKeys, now: now)
    }

    /// The same checks for any holder of `keys` named `clientID` (an operator realm's
    /// service account, too).
    func check(clientID: String, keys: [(kid: String?, key: VerificationKey)], now: Date) throws -> Checked {
        let refused = OAuthError.invalidClient("client authentication failed")
        guard let parsed = try? JWS.parse(jwt), case .object(let claims)? = try? JSONValue.decode(parsed.payload) else {
            throw refused
        }
        let kid = parsed.header["kid"]?.stringValue
        let candidates = keys.filter { kid == nil || $0.kid == nil || $0.kid == kid }
        guard candidates.contains(where: { (try? JWS.verify(parsed, key: $0.key, accepted: [.es256, .rs256])) != nil })
        else { throw refused }
        guard claims["iss"]?.stringValue == clientID, claims["sub"]?.stringValue == clientID else {
            throw refused
        }
        let audiences: [String] =
            switch claims["aud"] {
            case .string(let one): [one]
            case .array(let many): many.compactMap(\.stringValue)
            default: []
            }
        guard audiences.contains(where: self.audiences.contains) else {
            throw OAuthError.invalidClient("client_assertion aud must be the token endpoint's URL or the issuer")
        }
        guard let exp = claims["exp"]?.doubleValue, exp > now.timeIntervalSince1970 - TokenVerifier.skew,
            exp <= now.timeIntervalSince1970 + Self.maxLifetime + TokenVerifier.skew
        else { throw OAuthError.invalidClient("client_assertion is expired or lives longer than 5 minutes") }
        if let iat = claims["iat"]?.doubleValue, iat > now.timeIntervalSince1970 + TokenVerifier.skew {
            throw refused
        }
        guard let jti = claims["jti"]?.stringValue, (1...256).contains(jti.utf8.count) else {
            throw OAuthError.invalidClient("client_assertion needs a jti")
        }
        return Checked(clientID: clientID, jti: jti, expiresAt: Date(timeIntervalSince1970: exp))
    }
}
