import _CryptoExtras
import Crypto
import Foundation

/// scrypt password hashes: `scrypt$<logN>$<r>$<p>$<salt b64url>$<hash b64url>`.
public struct PasswordHasher: Sendable {
    /// log2 of the scrypt cost N (15 → 32 MiB with r = 8).
    public let logN: Int

    public init(logN: Int = 15) {
        self.logN = logN
    }

    /// A fresh salted hash of `password`.
    public func hash(_ password: String) throws -> String {
        let salt = Data(Base64URL.decode(Base64URL.random(byteCount: 16))!)
        let key = try Self.derive(password, salt: salt, logN: logN, r: 8, p: 1)
        return "scrypt$\(logN)$8$1$\(Base64URL.encode(salt))$\(Base64URL.encode(key))"
    }

    /// True when `password` matches `encoded` (constant-time comparison of the derived key).
    public func verify(_ password: String, against encoded: String) -> Bool {
        let parts = encoded.split(separator: "$")
        guard parts.count == 6, parts[0] == "scrypt", let logN = Int(parts[1]), (10...20).contains(logN),
              let r = Int(parts[2]), let p = Int(parts[3]), let salt = Base64URL.decode(parts[4]),
              let expected = Base64URL.decode(parts[5]),
              let actual = try? Self.derive(password, salt: salt, logN: logN, r: r, p: p)
        else { return false }
        return ConstantTime.equals(Base64URL.encode(actual), Base64URL.encode(expected))
    }

    /// Burns the same work as a real check, for unknown users (no timing oracle).
    public func dummyVerify(_ password: String) {
        _ = try? Self.derive(password, salt: Data(count: 16), logN: logN, r: 8, p: 1)
    }

    private static func derive(_ password: String, salt: Data, logN: Int, r: Int, p: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(from: Data(password.utf8), salt: salt, outputByteCount: 32, rounds: 1 << logN, blockSize: r, parallelism: p, maxMemory: 256 << 20)
        return key.withUnsafeBytes { Data($0) }
    }
}
