import Crypto
import _CryptoExtras

/// A passkey's public key, read from its COSE_Key (RFC 9052 §7, RFC 9053): ES256 on P-256,
/// RS256 (RSASSA-PKCS1-v1_5 with SHA-256, 2048 bits or more) and EdDSA on Ed25519, the
/// algorithms a relying party offers in `pubKeyCredParams`.
public enum COSEKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case rs256(_RSA.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)

    /// The COSE algorithm identifiers of the keys this reads, in the order offered.
    public static let algorithms = [Algorithm.es256, Algorithm.ed25519, Algorithm.rs256]

    /// COSE algorithm identifiers (the IANA "COSE Algorithms" registry).
    public enum Algorithm {
        public static let es256 = -7
        public static let ed25519 = -8
        public static let rs256 = -257
    }

    /// The key `item` describes. Every label must be an integer; the key type, the algorithm
    /// and the curve must agree.
    public init(_ item: CBOR) throws(COSEKeyError) {
        guard let pairs = item.pairs else { throw .notAMap }
        guard pairs.allSatisfy({ $0.key.int != nil }) else { throw .invalid("a label is not an integer") }
        guard let kty = item[1]?.int else { throw .missing("kty") }
        guard let alg = item[3]?.int else { throw .missing("alg") }
        switch (kty, alg) {
        case (2, Algorithm.es256):
            guard item[-1]?.int == 1 else { throw .invalid("ES256 needs the P-256 curve") }
            let x = try Self.bytes(item, -2, "x", count: 32)
            let y = try Self.bytes(item, -3, "y", count: 32)
            do { self = .es256(try P256.Signing.PublicKey(rawRepresentation: x + y)) } catch {
                throw .invalid("not a point on P-256")
            }
        case (3, Algorithm.rs256):
            let n = try Self.bytes(item, -1, "n")
            let e = try Self.bytes(item, -2, "e")
            do { self = .rs256(try _RSA.Signing.PublicKey(n: n, e: e)) } catch {
                throw .invalid("not an RSA key of 2048 bits or more")
            }
        case (1, Algorithm.ed25519):
            guard item[-1]?.int == 6 else { throw .invalid("EdDSA needs the Ed25519 curve") }
            let x = try Self.bytes(item, -2, "x", count: 32)
            do { self = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x)) } catch {
                throw .invalid("not an Ed25519 key")
            }
        case (1...3, _):
            throw .unsupportedAlgorithm(alg)
        default:
            throw .unsupportedKeyType(kty)
        }
    }

    /// The COSE algorithm identifier of this key.
    public var algorithm: Int {
        switch self {
        case .es256: Algorithm.es256
        case .rs256: Algorithm.rs256
        case .ed25519: Algorithm.ed25519
        }
    }

    /// Whether `signature` (as WebAuthn carries it: DER for ECDSA, raw for RSA and EdDSA) is
    /// this key's over `data`.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch self {
        case .es256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: data)
        case .rs256(let key):
            let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.isValidSignature(parsed, for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        }
    }

    private static func bytes(
        _ item: CBOR, _ label: Int, _ name: String, count: Int? = nil
    ) throws(COSEKeyError)
        -> [UInt8]
    {
        guard let bytes = item[label]?.bytes else { throw .missing(name) }
        guard count == nil || bytes.count == count else { throw .invalid("\(name) is not \(count ?? 0) bytes") }
        return bytes
    }
}

/// Why a COSE_Key is not a passkey's public key.
public enum COSEKeyError: Error, Equatable, Sendable {
    case notAMap
    /// A member the key type needs is absent or of the wrong type.
    case missing(String)
    /// The members disagree or do not make a key.
    case invalid(String)
    case unsupportedAlgorithm(Int)
    case unsupportedKeyType(Int)
}
