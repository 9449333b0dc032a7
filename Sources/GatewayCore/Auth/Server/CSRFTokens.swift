import Crypto
import Foundation

/// Signed, expiring CSRF tokens for the sign-in form: `<expiry>.<HMAC(expiry|binding)>`,
/// where the binding is the tenant, client and redirect URI of the form. Stateless, so
/// every replica accepts the tokens of the others (the key derives from the master key).
public struct CSRFTokens: Sendable {
    private let key: SymmetricKey
    public let lifetime: TimeInterval
    private let clock: WallClock

    /// A key derived (HKDF) from the master key.
    public init(masterKey: MasterKey, lifetime: TimeInterval = 900, clock: WallClock = .system) {
        self.clock = clock
        self.key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: masterKey.symmetricKey, info: Data("superapp-gateway csrf v1".utf8), outputByteCount: 32)
        self.lifetime = lifetime
    }

    /// A token for a form bound to `binding`.
    public func issue(binding: String) -> String {
        let now = clock.now()
        let expiry = Int64(now.timeIntervalSince1970 + lifetime)
        return "\(expiry).\(mac(expiry: expiry, binding: binding))"
    }

    /// Whether `token` was issued for `binding` and has not expired.
    public func verify(_ token: String, binding: String) -> Bool {
        let now = clock.now()
        let parts = token.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let expiry = Int64(parts[0]), TimeInterval(expiry) > now.timeIntervalSince1970 else {
            return false
        }
        return ConstantTime.equals(String(parts[1]), mac(expiry: expiry, binding: binding))
    }

    private func mac(expiry: Int64, binding: String) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data("\(expiry)|\(binding)".utf8), using: key))
    }
}
