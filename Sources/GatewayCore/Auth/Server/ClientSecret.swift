import Crypto
import Foundation

/// Client secrets: 32 random bytes shown once; stored as `sha256$<b64url>` (high-entropy
/// secrets need no slow KDF).
public enum ClientSecret {
    /// A new secret and its stored hash.
    public static func generate() -> (secret: String, hash: String) {
        let secret = Base64URL.random(byteCount: 32)
        return (secret, hash(secret))
    }

    public static func hash(_ secret: String) -> String {
        "sha256$" + Base64URL.sha256(secret)
    }

    public static func verify(_ secret: String, hash stored: String) -> Bool {
        ConstantTime.equals(hash(secret), stored)
    }
}
