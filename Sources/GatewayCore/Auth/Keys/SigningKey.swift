import Crypto
import _CryptoExtras
import Foundation

/// One signing key of a tenant: ES256 (P-256; access tokens, and ID tokens of clients that ask
/// for it) or RS256 (RSA-2048 or larger; ID tokens by default, as OpenID Connect requires).
///
/// A key has a life (``Phase``), decided by its ``Schedule`` at the time asked, so every
/// replica moves a key between phases at the stored times, not when it happens to reload:
/// *next* (published in the JWKS, not signing yet) → *signing* (the newest key of its algorithm
/// whose signing time has come) → *verify-only* (published, superseded or told to stop) →
/// *retired* (gone from the JWKS; tokens it signed are refused).
public struct SigningKey: Sendable {
    /// What was stored before key schedules: `retired` keys are gone whatever their schedule.
    public enum State: String, Sendable, Codable {
        case active
        case retired
    }

    /// Where a key is in its life at a given time.
    public enum Phase: String, Sendable, Codable, CaseIterable {
        /// Published, not signing yet (its signing time is still to come).
        case next
        /// Published and signing new tokens.
        case signing
        /// Published so tokens it signed verify; signs nothing new.
        case verifyOnly = "verify-only"
        /// Not published; tokens it signed are refused.
        case retired
    }

    /// When a key signs and when it leaves the JWKS.
    public struct Schedule: Sendable, Equatable {
        /// From when it may sign (until then it is *next*).
        public var signFrom: Date
        /// From when it signs nothing new (nil: until a newer key signs).
        public var signUntil: Date?
        /// From when it is no longer published (nil: until retired).
        public var unpublishAt: Date?

        public init(signFrom: Date, signUntil: Date? = nil, unpublishAt: Date? = nil) {
            self.signFrom = signFrom
            self.signUntil = signUntil
            self.unpublishAt = unpublishAt
        }
    }

    /// The JWS algorithms the gateway signs with.
    public enum Algorithm: String, Sendable, CaseIterable, Codable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    /// The private key itself.
    public enum Material: Sendable {
        case es256(P256.Signing.PrivateKey)
        case rs256(_RSA.Signing.PrivateKey)
    }

    public let tenantID: String
    public let kid: String
    public var state: State
    public let createdAt: Date
    public var schedule: Schedule
    public let material: Material

    /// - Parameter schedule: nil: signing from `createdAt` on, published until retired.
    public init(
        tenantID: String, kid: String, state: State, createdAt: Date, schedule: Schedule? = nil, material: Material
    ) {
        self.tenantID = tenantID
        self.kid = kid
        self.state = state
        self.createdAt = createdAt
        self.schedule = schedule ?? Schedule(signFrom: createdAt)
        self.material = material
    }

    /// An ES256 key (the shape every key had before RS256).
    public init(tenantID: String, kid: String, state: State, createdAt: Date, privateKey: P256.Signing.PrivateKey) {
        self.init(tenantID: tenantID, kid: kid, state: state, createdAt: createdAt, material: .es256(privateKey))
    }

    /// A key read back from its PEM (as stored, sealed): P-256 or RSA, told apart by parsing.
    public init(
        tenantID: String, kid: String, state: State, createdAt: Date, schedule: Schedule? = nil, pem: String
    ) throws {
        let material: Material
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            material = .es256(key)
        } else {
            material = .rs256(try _RSA.Signing.PrivateKey(pemRepresentation: pem))
        }
        self.init(
            tenantID: tenantID, kid: kid, state: state, createdAt: createdAt, schedule: schedule, material: material)
    }

    /// Whether the JWKS lists the key at `now`.
    public func isPublished(at now: Date) -> Bool {
        state == .active && schedule.unpublishAt.map { now < $0 } ?? true
    }

    /// Whether the key may sign at `now` (the newest such key of its algorithm does).
    public func maySign(at now: Date) -> Bool {
        isPublished(at: now) && schedule.signFrom <= now && schedule.signUntil.map { now < $0 } ?? true
    }

    /// A fresh key; kid = a letter (`k` for ES256, `r` for RS256) + the first 15 chars of the
    /// RFC 7638 thumbprint. The letter keeps a kid from starting with `-` (base64url), which a
    /// command line would read as a flag (`gatewayctl keys retire --kid -x…`). RSA keys are
    /// 2048 bits unless `rsaBits` says more (generation takes tens of milliseconds).
    /// - Parameter signFrom: when it starts signing (nil: at once).
    public static func generate(
        tenantID: String, algorithm: Algorithm = .es256, rsaBits: Int = 2048, now: Date = Date(),
        signFrom: Date? = nil
    ) throws -> SigningKey {
        // Whole milliseconds (down), as stores keep times: a key read back signs from the very
        // instant it was made to, never a fraction of a millisecond later.
        let now = Self.wholeMilliseconds(now)
        let schedule = Schedule(signFrom: Self.wholeMilliseconds(signFrom ?? now))
        switch algorithm {
        case .es256:
            let key = P256.Signing.PrivateKey()
            return SigningKey(
                tenantID: tenantID, kid: "k" + JWK.thumbprint(key.publicKey).prefix(15), state: .active, createdAt: now,
                schedule: schedule, material: .es256(key))
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(keySize: .init(bitCount: max(2048, rsaBits)))
            return SigningKey(
                tenantID: tenantID, kid: "r" + (try JWK.thumbprint(key.publicKey)).prefix(15), state: .active,
                createdAt: now, schedule: schedule, material: .rs256(key))
        }
    }

    private static func wholeMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    /// The algorithm this key signs with.
    public var algorithm: Algorithm {
        switch material {
        case .es256: .es256
        case .rs256: .rs256
        }
    }

    /// The private key as PEM, for sealing at rest.
    public var pemRepresentation: String {
        switch material {
        case .es256(let key): key.pemRepresentation
        case .rs256(let key): key.pemRepresentation
        }
    }

    /// The public half, for verifying.
    public var verificationKey: VerificationKey {
        switch material {
        case .es256(let key): .es256(key.publicKey)
        case .rs256(let key): .rs256(key.publicKey)
        }
    }

    /// The JWS signature of `input`: ES256 as r ‖ s (64 bytes), RS256 as RSASSA-PKCS1-v1_5
    /// with SHA-256.
    public func sign(_ input: Data) throws -> Data {
        switch material {
        case .es256(let key): try key.signature(for: input).rawRepresentation
        case .rs256(let key):
            try key.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation
        }
    }

    /// The public JWK (`kty, crv, x, y` or `kty, n, e`, with `kid, use, alg`).
    public var publicJWK: [String: JSONValue] {
        var jwk: [String: JSONValue]
        switch material {
        case .es256(let key): jwk = JWK.publicJWK(key.publicKey)
        case .rs256(let key): jwk = (try? JWK.publicJWK(key.publicKey)) ?? [:]
        }
        jwk["kid"] = .string(kid)
        jwk["use"] = "sig"
        jwk["alg"] = .string(algorithm.rawValue)
        return jwk
    }
}

/// A public key that verifies the gateway's signatures.
public enum VerificationKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case rs256(_RSA.Signing.PublicKey)

    /// The algorithm a signature by this key must name in its header.
    public var algorithm: SigningKey.Algorithm {
        switch self {
        case .es256: .es256
        case .rs256: .rs256
        }
    }

    /// Whether `signature` signs `input`.
    public func isValidSignature(_ signature: Data, for input: Data) -> Bool {
        switch self {
        case .es256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: input)
        case .rs256(let key):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
                padding: .insecurePKCS1v1_5)
        }
    }
}

/// Public keys as JWKs and their RFC 7638 thumbprints.
public enum JWK {
    /// `{kty: EC, crv: P-256, x, y}`.
    public static func publicJWK(_ key: P256.Signing.PublicKey) -> [String: JSONValue] {
        let raw = key.rawRepresentation  // x ‖ y, 64 bytes
        return [
            "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(raw.prefix(32))),
            "y": .string(Base64URL.encode(raw.suffix(32))),
        ]
    }

    /// `{kty: RSA, n, e}` (big-endian unsigned integers, base64url, no leading zero bytes).
    public static func publicJWK(_ key: _RSA.Signing.PublicKey) throws -> [String: JSONValue] {
        let primitives = try key.getKeyPrimitives()
        return [
            "kty": "RSA", "n": .string(Base64URL.encode(unsigned(primitives.modulus))),
            "e": .string(Base64URL.encode(unsigned(primitives.publicExponent))),
        ]
    }

    /// The RFC 7638 SHA-256 thumbprint, base64url.
    public static func thumbprint(_ key: P256.Signing.PublicKey) -> String {
        let jwk = publicJWK(key)
        let canonical =
            "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(jwk["x"]!.stringValue!)\",\"y\":\"\(jwk["y"]!.stringValue!)\"}"
        return Base64URL.sha256(canonical)
    }

    /// The RFC 7638 SHA-256 thumbprint of an RSA key (members `e`, `kty`, `n`), base64url.
    public static func thumbprint(_ key: _RSA.Signing.PublicKey) throws -> String {
        let jwk = try publicJWK(key)
        let canonical = "{\"e\":\"\(jwk["e"]!.stringValue!)\",\"kty\":\"RSA\",\"n\":\"\(jwk["n"]!.stringValue!)\"}"
        return Base64URL.sha256(canonical)
    }

    /// Parses an EC P-256 public JWK; nil for anything else (including a JWK carrying `d`).
    public static func p256PublicKey(_ jwk: [String: JSONValue]) -> P256.Signing.PublicKey? {
        guard jwk["kty"]?.stringValue == "EC", jwk["crv"]?.stringValue == "P-256", jwk["d"] == nil,
            let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode),
            let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode),
            x.count == 32, y.count == 32
        else { return nil }
        return try? P256.Signing.PublicKey(rawRepresentation: x + y)
    }

    /// The keys of a JWK Set (`{"keys": [...]}`) that can verify signatures, with their `kid`s.
    public static func assertionKeys(_ jwks: JSONValue?) -> [(kid: String?, key: VerificationKey)] {
        guard case .object(let set)? = jwks, case .array(let keys)? = set["keys"] else { return [] }
        return keys.compactMap { entry in
            guard case .object(let jwk) = entry, let key = verificationKey(jwk) else { return nil }
            return (jwk["kid"]?.stringValue, key)
        }
    }

    /// Whether `jwks` is a JWK Set of 1-10 public signing keys, every one usable.
    public static func isAssertionKeySet(_ jwks: JSONValue) -> Bool {
        guard case .object(let set) = jwks, case .array(let keys) = set["keys"] ?? .null, (1...10).contains(keys.count)
        else { return false }
        return assertionKeys(jwks).count == keys.count
    }

    /// A public signing key from a JWK of a key set: EC P-256 (ES256) or RSA of 2048 bits or
    /// more (RS256). nil for anything else: other curves, symmetric keys, keys marked for
    /// encryption (`use: enc`), keys carrying private members, or an `alg` other than the key's.
    public static func verificationKey(_ jwk: [String: JSONValue]) -> VerificationKey? {
        if let use = jwk["use"], use.stringValue != "sig" { return nil }
        let alg = jwk["alg"]?.stringValue
        switch jwk["kty"]?.stringValue {
        case "EC":
            guard alg == nil || alg == "ES256", let key = p256PublicKey(jwk) else { return nil }
            return .es256(key)
        case "RSA":
            guard alg == nil || alg == "RS256", jwk["d"] == nil,
                let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                n.drop(while: { $0 == 0 }).count >= 256,
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            return .rs256(key)
        default:
            return nil
        }
    }

    private static func unsigned(_ bytes: Data) -> Data {
        let trimmed = bytes.drop { $0 == 0 }
        return trimmed.isEmpty ? Data([0]) : Data(trimmed)
    }
}
