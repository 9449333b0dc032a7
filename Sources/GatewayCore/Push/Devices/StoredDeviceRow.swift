import Foundation

/// A `push_devices` row as both engines store it: the token sealed (``PushDevice/tokenSealingContext``)
/// and found by its fingerprint, times in milliseconds.
public struct StoredDeviceRow: Sendable {
    public var id: String
    public var userID: String
    public var provider: String
    public var tokenSealed: String
    public var platform: String
    public var locale: String?
    public var appVersion: String?
    public var apnsEnvironment: String?
    public var createdAtMS: Int64
    public var updatedAtMS: Int64

    public init(
        id: String, userID: String, provider: String, tokenSealed: String, platform: String, locale: String?,
        appVersion: String?, apnsEnvironment: String?, createdAtMS: Int64, updatedAtMS: Int64
    ) {
        self.id = id
        self.userID = userID
        self.provider = provider
        self.tokenSealed = tokenSealed
        self.platform = platform
        self.locale = locale
        self.appVersion = appVersion
        self.apnsEnvironment = apnsEnvironment
        self.createdAtMS = createdAtMS
        self.updatedAtMS = updatedAtMS
    }

    /// The row of `device`, its token sealed.
    public init(_ device: PushDevice, sealer: SecretSealer) throws {
        self.init(
            id: device.id, userID: device.userID, provider: device.provider.rawValue,
            tokenSealed: try sealer.seal(device.token, context: device.tokenSealingContext),
            platform: device.platform.rawValue, locale: device.locale, appVersion: device.appVersion,
            apnsEnvironment: device.apnsEnvironment?.rawValue, createdAtMS: StoreClock.milliseconds(device.createdAt),
            updatedAtMS: StoreClock.milliseconds(device.updatedAt))
    }

    /// The fingerprint `device`'s token is found by.
    public static func fingerprint(of device: PushDevice, sealer: SecretSealer) -> String {
        sealer.fingerprint(
            device.token, context: PushDevice.tokenFingerprintContext(tenantID: device.tenantID, provider: device.provider))
    }

    /// The device of this row of `tenantID`, its token opened.
    public func device(tenantID: String, sealer: SecretSealer) throws -> PushDevice {
        guard let provider = PushProvider(rawValue: provider), let platform = DevicePlatform(rawValue: platform) else {
            throw DeviceError.invalid("stored device \(id) has an unknown provider or platform")
        }
        var device = PushDevice(
            id: id, tenantID: tenantID, userID: userID, provider: provider, token: "", platform: platform,
            locale: locale, appVersion: appVersion, apnsEnvironment: apnsEnvironment.flatMap(APNsEnvironment.init),
            createdAt: StoreClock.date(createdAtMS), updatedAt: StoreClock.date(updatedAtMS))
        device.token = try sealer.open(tokenSealed, context: device.tokenSealingContext)
        return device
    }
}
