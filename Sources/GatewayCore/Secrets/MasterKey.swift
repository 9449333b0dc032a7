import Crypto
import Foundation

/// The 32-byte AES-256 key that seals every stored secret.
///
/// Its description never shows key material.
public struct MasterKey: Sendable, CustomStringConvertible {
    /// Required key length in bytes.
    public static let byteCount = 32

    let symmetricKey: SymmetricKey

    /// A key from raw bytes; throws ``MasterKeyError/wrongLength(source:byteCount:)`` unless 32 bytes.
    public init(bytes: Data, source: String = "master key") throws {
        guard bytes.count == Self.byteCount else {
            throw MasterKeyError.wrongLength(source: source, byteCount: bytes.count)
        }
        symmetricKey = SymmetricKey(data: bytes)
    }

    /// A key from base64 text (surrounding whitespace ignored). `source` names where the
    /// text came from (an environment variable or a file) for error messages.
    public init(base64: String, source: String = "master key") throws {
        let trimmed = base64.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: trimmed) else {
            throw MasterKeyError.invalidBase64(source: source)
        }
        try self.init(bytes: bytes, source: source)
    }

    /// A fresh random key.
    public static func generate() -> MasterKey {
        MasterKey(symmetricKey: SymmetricKey(size: .bits256))
    }

    private init(symmetricKey: SymmetricKey) {
        self.symmetricKey = symmetricKey
    }

    /// The key as base64 (for writing a key file). Handle with care.
    public var base64: String {
        symmetricKey.withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// A short non-secret fingerprint (first 8 hex digits of SHA-256 of the key).
    public var fingerprint: String {
        let digest = symmetricKey.withUnsafeBytes { SHA256.hash(data: Data($0)) }
        return LowercaseHex.string(digest.prefix(4))
    }

    public var description: String { "MasterKey(sha256:\(fingerprint)…)" }
}

/// Why a master key could not be loaded.
public enum MasterKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidBase64(source: String)
    case wrongLength(source: String, byteCount: Int)
    case unreadableFile(path: String, reason: String)
    case unwritableFile(path: String, reason: String)
    /// Outside development mode a key must be configured.
    case missing

    public var description: String {
        switch self {
        case .invalidBase64(let source):
            "\(source) is not valid base64 (expected base64 of exactly 32 random bytes)"
        case .wrongLength(let source, let count):
            "\(source) must decode to exactly 32 bytes, got \(count)"
        case .unreadableFile(let path, let reason):
            "cannot read master key file \(path): \(reason)"
        case .unwritableFile(let path, let reason):
            "cannot write master key file \(path): \(reason)"
        case .missing:
            "no master key configured: set GATEWAY_MASTER_KEY (base64 of 32 bytes) or GATEWAY_MASTER_KEY_FILE"
        }
    }
}
