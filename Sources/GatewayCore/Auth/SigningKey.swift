import Crypto
import Foundation

/// One ES256 (P-256) signing key of a tenant. `active` keys are published in the JWKS and
/// the newest signs; `retired` keys are neither used nor published.
public struct SigningKey: Sendable {
    /// Lifecycle of a key.
    public enum State: String, Sendable, Codable {
        case active
        case retired
    }

    public let tenantID: String
    public let kid: String
    public var state: State
    public let createdAt: Date
    public let privateKey: P256.Signing.PrivateKey

    public init(tenantID: String, kid: String, state: State, createdAt: Date, privateKey: P256.Signing.PrivateKey) {
        self.tenantID = tenantID
        self.kid = kid
        self.state = state
        self.createdAt = createdAt
        self.privateKey = privateKey
    }

    /// A fresh key; kid = `k` + the first 15 chars of the RFC 7638 thumbprint. The letter
    /// keeps a kid from starting with `-` (base64url), which a command line would read as
    /// a flag (`gatewayctl keys retire --kid -x…`).
    public static func generate(tenantID: String, now: Date = Date()) -> SigningKey {
        let key = P256.Signing.PrivateKey()
        return SigningKey(tenantID: tenantID, kid: "k" + JWK.thumbprint(key.publicKey).prefix(15), state: .active, createdAt: now, privateKey: key)
    }

    /// The public JWK (`kty, crv, x, y, kid, use, alg`).
    public var publicJWK: [String: JSONValue] {
        var jwk = JWK.publicJWK(privateKey.publicKey)
        jwk["kid"] = .string(kid)
        jwk["use"] = "sig"
        jwk["alg"] = "ES256"
        return jwk
    }
}

/// P-256 public keys as JWKs and their RFC 7638 thumbprints.
public enum JWK {
    /// `{kty: EC, crv: P-256, x, y}`.
    public static func publicJWK(_ key: P256.Signing.PublicKey) -> [String: JSONValue] {
        let raw = key.rawRepresentation // x ‖ y, 64 bytes
        return ["kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(raw.prefix(32))), "y": .string(Base64URL.encode(raw.suffix(32)))]
    }

    /// The RFC 7638 SHA-256 thumbprint, base64url.
    public static func thumbprint(_ key: P256.Signing.PublicKey) -> String {
        let jwk = publicJWK(key)
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(jwk["x"]!.stringValue!)\",\"y\":\"\(jwk["y"]!.stringValue!)\"}"
        return Base64URL.encode(SHA256.hash(data: Data(canonical.utf8)))
    }

    /// Parses an EC P-256 public JWK; nil for anything else (including a JWK carrying `d`).
    public static func p256PublicKey(_ jwk: [String: JSONValue]) -> P256.Signing.PublicKey? {
        guard jwk["kty"]?.stringValue == "EC", jwk["crv"]?.stringValue == "P-256", jwk["d"] == nil,
              let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode), let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode),
              x.count == 32, y.count == 32
        else { return nil }
        return try? P256.Signing.PublicKey(rawRepresentation: x + y)
    }
}
