import Foundation

/// Users' push devices: registration checked against ``DeviceRules``, bounded per user,
/// listing and removal. Erasure and "sign out everywhere" remove a user's devices.
public struct DeviceService: Sendable {
    /// Devices kept per user unless configured (the oldest beyond it are dropped).
    public static let defaultMaxPerUser = 20

    private let store: any DeviceStore
    private let maxPerUser: Int
    private let clock: WallClock

    public init(store: any DeviceStore, maxPerUser: Int = Self.defaultMaxPerUser, clock: WallClock = .system) {
        self.store = store
        self.maxPerUser = maxPerUser
        self.clock = clock
    }

    /// What a signed-in device sends to register.
    public struct Request: Sendable {
        public var provider: PushProvider
        public var token: String
        public var platform: DevicePlatform
        public var locale: String?
        public var appVersion: String?
        public var apnsEnvironment: APNsEnvironment?

        public init(
            provider: PushProvider, token: String, platform: DevicePlatform, locale: String? = nil,
            appVersion: String? = nil, apnsEnvironment: APNsEnvironment? = nil
        ) {
            self.provider = provider
            self.token = token
            self.platform = platform
            self.locale = locale
            self.appVersion = appVersion
            self.apnsEnvironment = apnsEnvironment
        }
    }

    /// Registers the device of `request` for `userID` of `tenantID` (APNs devices default
    /// to the production environment).
    /// - Throws: ``DeviceError/invalid(_:)``, and nothing is stored.
    public func register(_ request: Request, tenantID: String, userID: String) async throws -> DeviceRegistration {
        let now = StoreClock.date(StoreClock.milliseconds(clock.now()))
        let device = PushDevice(
            id: Self.newID(), tenantID: tenantID, userID: userID, provider: request.provider, token: request.token,
            platform: request.platform, locale: request.locale, appVersion: request.appVersion,
            apnsEnvironment: request.provider == .apns ? request.apnsEnvironment ?? .production : request.apnsEnvironment,
            createdAt: now, updatedAt: now)
        try DeviceRules.check(device)
        return try await store.register(device, maxPerUser: maxPerUser)
    }

    /// The user's devices, newest registration first.
    public func devices(tenantID: String, userID: String) async throws -> [PushDevice] {
        try await store.devices(tenantID: tenantID, userID: userID)
    }

    /// Removes one of the user's devices.
    /// - Throws: ``DeviceError/notFound(deviceID:)`` when the user has no such device.
    public func remove(deviceID: String, tenantID: String, userID: String) async throws {
        guard try await store.remove(tenantID: tenantID, userID: userID, deviceID: deviceID) else {
            throw DeviceError.notFound(deviceID: deviceID)
        }
    }

    /// Turns the host app's sign-in requests (CIBA pushes) on or off for one of the user's devices.
    /// - Throws: ``DeviceError/notFound(deviceID:)`` when the user has no such device.
    public func setSignInRequests(_ enabled: Bool, deviceID: String, tenantID: String, userID: String) async throws {
        guard try await store.setSignInRequests(enabled, tenantID: tenantID, userID: userID, deviceID: deviceID) else {
            throw DeviceError.notFound(deviceID: deviceID)
        }
    }

    /// Removes every device of the user (sign-out everywhere, a disabled account).
    @discardableResult
    public func removeAll(tenantID: String, userID: String) async throws -> Int {
        try await store.removeAll(tenantID: tenantID, userID: userID)
    }

    /// A random registration id: `dev_` and 22 base64url characters (128 bits).
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "dev_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
