import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636), S256 only (RFC 9700 forbids `plain`).
public enum PKCE {
    /// The verifier grammar: 43-128 characters of `[A-Za-z0-9-._~]`.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        let bytes = verifier.utf8
        guard (43...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy(isUnreserved)
    }

    /// A challenge is the base64url SHA-256 of a verifier: exactly 43 unreserved characters.
    public static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && challenge.utf8.allSatisfy(isUnreserved)
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))`.
    public static func challenge(for verifier: String) -> String {
        Base64URL.sha256(verifier)
    }

    /// True when `verifier` is well-formed and hashes to `challenge` (constant-time compare).
    public static func verify(verifier: String, challenge: String) -> Bool {
        guard isValidVerifier(verifier) else { return false }
        return ConstantTime.equals(Self.challenge(for: verifier), challenge)
    }

    private static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }
}

/// Comparison whose time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Byte-wise equality in time proportional to the longer input.
    public static func equals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return diff == 0
    }
}
