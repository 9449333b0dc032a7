import Foundation

/// Which push service reaches a device.
public enum PushProvider: String, Sendable, Equatable, Codable, CaseIterable {
    /// Apple Push Notification service (HTTP/2 provider API).
    case apns
    /// Firebase Cloud Messaging (HTTP v1 API).
    case fcm
}

/// Which APNs endpoint a device's token belongs to.
public enum APNsEnvironment: String, Sendable, Equatable, Codable, CaseIterable {
    case sandbox, production
}

/// The operating system of a device.
public enum DevicePlatform: String, Sendable, Equatable, Codable, CaseIterable {
    case ios, android
}

/// A device registered by a signed-in user to receive push notifications. The token is
/// a secret: sealed at rest, never logged, never answered.
public struct PushDevice: Sendable, Equatable {
    /// The gateway's id of the registration (random; a moved token gets a new one).
    public var id: String
    public var tenantID: String
    /// The user (token `sub`).
    public var userID: String
    public var provider: PushProvider
    /// The provider's device token.
    public var token: String
    public var platform: DevicePlatform
    /// BCP 47 language tag the device's texts are picked by (nil: the default text).
    public var locale: String?
    public var appVersion: String?
    /// APNs only: which endpoint the token belongs to.
    public var apnsEnvironment: APNsEnvironment?
    public var createdAt: Date
    /// The last registration of this token.
    public var updatedAt: Date

    public init(
        id: String, tenantID: String, userID: String, provider: PushProvider, token: String,
        platform: DevicePlatform, locale: String? = nil, appVersion: String? = nil,
        apnsEnvironment: APNsEnvironment? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.tenantID = tenantID
        self.userID = userID
        self.provider = provider
        self.token = token
        self.platform = platform
        self.locale = locale
        self.appVersion = appVersion
        self.apnsEnvironment = apnsEnvironment
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What ``DeviceStore/register(_:maxPerUser:)`` did.
public struct DeviceRegistration: Sendable, Equatable {
    /// The device as stored (an existing registration of the same token by the same user
    /// keeps its id and creation time).
    public var device: PushDevice
    /// Whether this made a new registration (false: the user's own, refreshed).
    public var created: Bool
    /// Whether the token had been registered by another user of the tenant (that
    /// registration is gone).
    public var movedFromOtherUser: Bool
    /// The user's oldest devices dropped to stay within the bound.
    public var dropped: Int

    public init(device: PushDevice, created: Bool, movedFromOtherUser: Bool, dropped: Int) {
        self.device = device
        self.created = created
        self.movedFromOtherUser = movedFromOtherUser
        self.dropped = dropped
    }
}
