import Crypto
import Foundation

/// Unpadded base64url (RFC 4648 §5), as JOSE and PKCE use it.
public enum Base64URL {
    /// Encodes bytes without padding.
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded (or padded) base64url; nil when malformed.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !s.contains("=") || text.hasSuffix("=") else { return nil }
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }

    /// The SHA-256 digest of `text`'s UTF-8, base64url-encoded: PKCE S256, JWK thumbprints,
    /// DPoP `ath`, and the stored hashes of codes, tokens and secrets.
    public static func sha256(_ text: String) -> String {
        encode(SHA256.hash(data: Data(text.utf8)))
    }

    /// `n` random bytes, base64url-encoded (tokens, codes, ids).
    public static func random(byteCount n: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode((0..<n).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
