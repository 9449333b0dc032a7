import Crypto
import Foundation

/// Seals secrets for storage with AES-256-GCM under a ``MasterKey``.
///
/// A sealed value is `"v1:" + base64(nonce ‖ ciphertext ‖ tag)`. The `context` (for
/// example `"tenant:acme:platform.subscriptionKey"`) is authenticated but not stored,
/// so a sealed value only opens for the row and field it was sealed for.
public struct SecretSealer: Sendable {
    /// The prefix of every value this sealer produces.
    public static let versionPrefix = "v1:"

    private let key: SymmetricKey
    /// The key of ``fingerprint(_:context:)``, derived (HKDF) from the master key.
    private let fingerprintKey: SymmetricKey

    /// A sealer using `masterKey`.
    public init(masterKey: MasterKey) {
        self.key = masterKey.symmetricKey
        self.fingerprintKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: masterKey.symmetricKey, info: Data("superapp-gateway fingerprint v1".utf8),
            outputByteCount: 32)
    }

    /// A keyed digest of `value` in `context` (hex HMAC-SHA256): equal values give equal
    /// fingerprints, so a sealed secret can be found by value without storing it in the clear.
    public func fingerprint(_ value: String, context: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data((context + "\u{0}" + value).utf8), using: fingerprintKey)
        return LowercaseHex.string(mac)
    }

    /// Encrypts `plaintext`, binding it to `context`.
    public func seal(_ plaintext: String, context: String) throws -> String {
        let box = try AES.GCM.seal(Data(plaintext.utf8), using: key, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw SecretSealerError.malformed(context: context) }
        return Self.versionPrefix + combined.base64EncodedString()
    }

    /// Decrypts a value produced by ``seal(_:context:)`` with the same key and context.
    ///
    /// Throws ``SecretSealerError/authenticationFailed(context:)`` when the master key is
    /// not the one the value was sealed with, or the value was sealed for another context.
    public func open(_ sealed: String, context: String) throws -> String {
        guard sealed.hasPrefix(Self.versionPrefix) else {
            throw SecretSealerError.unsupportedFormat(context: context)
        }
        guard let combined = Data(base64Encoded: String(sealed.dropFirst(Self.versionPrefix.count))),
              let box = try? AES.GCM.SealedBox(combined: combined)
        else { throw SecretSealerError.malformed(context: context) }
        let plain: Data
        do {
            plain = try AES.GCM.open(box, using: key, authenticating: Data(context.utf8))
        } catch {
            throw SecretSealerError.authenticationFailed(context: context)
        }
        guard let text = String(data: plain, encoding: .utf8) else {
            throw SecretSealerError.malformed(context: context)
        }
        return text
    }
}

/// Why a sealed secret could not be opened.
public enum SecretSealerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Wrong master key, or the value was sealed for another tenant/field (tampered or moved).
    case authenticationFailed(context: String)
    /// Not a `v1:` sealed value.
    case unsupportedFormat(context: String)
    /// The sealed text is not valid base64 / AES-GCM data.
    case malformed(context: String)

    public var description: String {
        switch self {
        case .authenticationFailed(let context):
            "cannot open sealed secret \(context): wrong master key, or the value was sealed for another field"
        case .unsupportedFormat(let context):
            "sealed secret \(context) is not in a supported format (expected \"v1:...\")"
        case .malformed(let context):
            "sealed secret \(context) is malformed"
        }
    }
}
