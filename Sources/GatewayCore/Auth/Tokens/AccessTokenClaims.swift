import Foundation

/// The verified claims of an access token: who, for which client, what scope.
public struct AccessTokenClaims: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var clientID: String
    public var tenantID: String
    public var scope: String
    public var jti: String
    public var issuedAt: Date
    public var expiresAt: Date
    /// `cnf.jkt` when DPoP-bound.
    public var dpopJKT: String?
    /// The `kid` of the tenant's key that signed it (nil: a trusted issuer's token), so a
    /// memoised token is refused once that key leaves the JWKS.
    public var keyID: String? = nil
    /// `auth_time`: when the user signed in for the session the token belongs to (RFC 9068
    /// §2.2.1), nil when the token does not say.
    public var authTime: Date? = nil

    /// Whether the token's space-separated `scope` names `wanted` as one of its words. It runs
    /// on every protected request: a scan, no array.
    public func holds(_ wanted: String) -> Bool {
        var rest = scope.drop { $0 == " " }
        while !rest.isEmpty {
            let word = rest.prefix { $0 != " " }
            if word == wanted { return true }
            rest = rest[word.endIndex...].drop { $0 == " " }
        }
        return false
    }
}

/// Why a token or proof was refused (mapped to `WWW-Authenticate` error codes).
public enum TokenRejection: Error, Sendable, Equatable {
    /// `invalid_token` with a human detail.
    case invalidToken(String)
    /// `invalid_dpop_proof`.
    case invalidDPoPProof(String)
    /// `use_dpop_nonce`: the proof must carry a current server nonce (RFC 9449 §8).
    case dpopNonceRequired
    /// No token at all.
    case missing
    /// A valid token without the scope the operation needs (RFC 6750 §3.1, 403); `dpop` when
    /// the token came with the DPoP scheme, whose challenge then names it.
    case insufficientScope(String, dpop: Bool)

    public var detail: String {
        switch self {
        case .invalidToken(let d), .invalidDPoPProof(let d): d
        case .missing: "an access token is required"
        case .dpopNonceRequired: "the DPoP proof must carry the server's current nonce (DPoP-Nonce header)"
        case .insufficientScope(let scope, _): "This operation needs an access token with the scope `\(scope)`."
        }
    }
}
