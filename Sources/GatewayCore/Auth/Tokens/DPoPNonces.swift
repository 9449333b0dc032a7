import Crypto
import Foundation

/// Server-provided DPoP nonces (RFC 9449 §8): `<window>.<HMAC(tenant|window)>`, where the
/// window is the current `window`-long slice of time. A nonce is accepted in the window it was
/// issued in and the next one, so it lives between one and two windows. Stateless: every
/// replica issues and accepts the same nonces (the key derives from the master key), and
/// nothing is stored per nonce.
public struct DPoPNonces: Sendable {
    private let key: SymmetricKey
    /// Length of one window in seconds.
    public let window: Int64
    private let clock: WallClock

    /// A key derived (HKDF) from the master key.
    public init(masterKey: MasterKey, window: Int64 = 300, clock: WallClock = .system) {
        self.clock = clock
        self.key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: masterKey.symmetricKey, info: Data("superapp-gateway dpop-nonce v1".utf8),
            outputByteCount: 32)
        self.window = max(1, window)
    }

    /// The nonce to hand out now for `tenantID`.
    public func current(tenantID: String) -> String { current(tenantID: tenantID, now: clock.now()) }

    /// The nonce of the window `now` falls in.
    public func current(tenantID: String, now: Date) -> String {
        let slice = Int64(now.timeIntervalSince1970) / window
        return "\(slice).\(mac(slice, tenantID))"
    }

    /// Whether `nonce` was issued for `tenantID` in this window or the previous one.
    public func isValid(_ nonce: String, tenantID: String) -> Bool {
        isValid(nonce, tenantID: tenantID, now: clock.now())
    }

    /// Whether `nonce` was issued for `tenantID` in the window of `now` or the one before it.
    public func isValid(_ nonce: String, tenantID: String, now: Date) -> Bool {
        let parts = nonce.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count <= 20, let slice = Int64(parts[0]) else { return false }
        let current = Int64(now.timeIntervalSince1970) / window
        guard slice == current || slice == current - 1 else { return false }
        return ConstantTime.equals(String(parts[1]), mac(slice, tenantID))
    }

    /// ``isValid(_:tenantID:now:)`` for `tenantID`, in the form ``DPoPVerifier`` takes.
    public func validator(tenantID: String) -> @Sendable (String) -> Bool {
        { [self] nonce in isValid(nonce, tenantID: tenantID) }
    }

    private func mac(_ slice: Int64, _ tenantID: String) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data("\(slice)|\(tenantID)".utf8), using: key))
    }
}
