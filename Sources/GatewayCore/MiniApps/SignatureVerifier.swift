import Crypto
import Foundation

/// Verifies a mini-app bundle signature: ECDSA P-256 / SHA-256, DER encoded, over the
/// UTF-8 string `versionId + lowercase hex SHA-256(zip bytes)`.
public enum SignatureVerifier {
    /// - Parameters:
    ///   - signature: base64 DER signature (the platform's `Signature` header).
    ///   - ecKey: base64 of the uncompressed P-256 point (`/keys/{id}` → `ecKey`).
    public static func verify(
        signature: String, ecKey: String, versionID: String, zip: [UInt8]
    ) -> MiniAppAnswers.Verdict {
        guard let keyBytes = Data(base64Encoded: ecKey),
              let key = try? P256.Signing.PublicKey(x963Representation: keyBytes)
        else { return .init(status: .invalid, detail: "The platform's public key is not a P-256 point.") }
        guard let der = Data(base64Encoded: signature),
              let parsed = try? P256.Signing.ECDSASignature(derRepresentation: der)
        else { return .init(status: .invalid, detail: "The signature is not base64 DER.") }
        let digest = LowercaseHex.string(SHA256.hash(data: zip))
        let message = Data((versionID + digest).utf8)
        return key.isValidSignature(parsed, for: message)
            ? .init(status: .valid, detail: nil)
            : .init(status: .invalid, detail: "The signature does not match the bundle.")
    }
}
