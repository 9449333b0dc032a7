import Foundation

/// Where users' push devices are kept, in the tenant database on both engines. Tokens are
/// sealed at rest and found by a keyed fingerprint (``SecretSealer/fingerprint(_:context:)``),
/// so one token is registered at most once per tenant.
public protocol DeviceStore: Sendable {
    /// In one transaction: registers `device` for its user. The same token of the same
    /// provider registered before by the same user is refreshed (its id and creation time
    /// kept); registered by another user of the tenant, it moves (that registration is
    /// removed). Then the user's oldest devices beyond `maxPerUser` are removed.
    func register(_ device: PushDevice, maxPerUser: Int) async throws -> DeviceRegistration
    /// The devices of one user, newest registration first.
    func devices(tenantID: String, userID: String) async throws -> [PushDevice]
    /// Removes one device of the user; false when the user has no device `deviceID`.
    func remove(tenantID: String, userID: String, deviceID: String) async throws -> Bool
    /// Whether the device receives the host app's sign-in requests (CIBA pushes; on when
    /// registered); false when the user has no device `deviceID`.
    func setSignInRequests(_ enabled: Bool, tenantID: String, userID: String, deviceID: String) async throws -> Bool
    /// Removes every device of the user; returns how many there were.
    @discardableResult
    func removeAll(tenantID: String, userID: String) async throws -> Int
}

extension PushDevice {
    /// The sealing context of a device's token: bound to the tenant and registration, so a
    /// sealed token copied to another row does not open.
    public var tokenSealingContext: String { "tenant:\(tenantID):push-device:\(id):token" }

    /// The context of a token's fingerprint: one per tenant and provider.
    public static func tokenFingerprintContext(tenantID: String, provider: PushProvider) -> String {
        "tenant:\(tenantID):push-token:\(provider.rawValue)"
    }
}
