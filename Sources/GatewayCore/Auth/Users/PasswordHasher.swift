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
        guard let stored = Encoded(encoded),
              let actual = try? Self.derive(password, salt: stored.salt, logN: stored.logN, r: stored.r, p: stored.p)
        else { return false }
        return ConstantTime.equals(Base64URL.encode(actual), Base64URL.encode(stored.key))
    }

    /// True when `encoded` is a hash this hasher can check (`scrypt$logN$r$p$salt$key`, as
    /// ``hash(_:)`` writes it), e.g. one carried over from another gateway by an import.
    public static func isWellFormed(_ encoded: String) -> Bool {
        Encoded(encoded) != nil
    }

    /// The parts of a stored hash; nil when it is not one this hasher wrote or accepts.
    private struct Encoded {
        let logN: Int, r: Int, p: Int, salt: Data, key: Data

        init?(_ encoded: String) {
            let parts = encoded.split(separator: "$")
            guard parts.count == 6, parts[0] == "scrypt", let logN = Int(parts[1]), (10...20).contains(logN),
                  let r = Int(parts[2]), (1...32).contains(r), let p = Int(parts[3]), (1...16).contains(p),
                  let salt = Base64URL.decode(parts[4]), salt.count >= 8,
                  let key = Base64URL.decode(parts[5]), key.count >= 16
            else { return nil }
            (self.logN, self.r, self.p, self.salt, self.key) = (logN, r, p, Data(salt), Data(key))
        }
    }

    /// Burns the same work as a real check, for unknown users (no timing oracle).
    public func dummyVerify(_ password: String) {
        _ = try? Self.derive(password, salt: Data(count: 16), logN: logN, r: 8, p: 1)
    }

    private static func derive(_ password: String, salt: Data, logN: Int, r: Int, p: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(password.utf8), salt: salt, outputByteCount: 32, rounds: 1 << logN, blockSize: r, parallelism: p,
            maxMemory: 256 << 20)
        return key.withUnsafeBytes { Data($0) }
    }
}
