import Foundation

/// A user's ALLOWED/DENIED answers per mini app, durable and shared across devices.
public protocol ConsentStore: Sendable {
    /// The user's answers for one mini app (empty, version 0, when there are none).
    func consents(of owner: UserMiniAppKey) async throws -> MiniAppConsents
    /// Writes the given answers; when any status changes, bumps the consent version.
    @discardableResult
    func setConsents(_ changes: [String: ConsentStatus], for owner: UserMiniAppKey) async throws -> MiniAppConsents
    /// The mini apps the user has used (any consent or storage), most recently used first;
    /// at most `limit` of them when given.
    func userMiniApps(tenantID: String, userID: String, limit: Int?) async throws -> [MiniAppConsents]
    /// Records that the user used the mini app now (creates the entry).
    func touch(_ owner: UserMiniAppKey) async throws
}

extension ConsentStore {
    /// Every mini app the user has used, most recently used first.
    public func userMiniApps(tenantID: String, userID: String) async throws -> [MiniAppConsents] {
        try await userMiniApps(tenantID: tenantID, userID: userID, limit: nil)
    }
}

/// One stored answer.
public struct ConsentRecord: Sendable, Equatable, Codable {
    /// The custom permission name.
    public var permission: String
    /// ALLOWED or DENIED.
    public var status: ConsentStatus
    /// When the status last changed.
    public var updatedAt: Date

    public init(permission: String, status: ConsentStatus, updatedAt: Date) {
        self.permission = permission
        self.status = status
        self.updatedAt = updatedAt
    }
}

/// The user's answers for one mini app.
public struct MiniAppConsents: Sendable, Equatable, Codable {
    /// The mini app.
    public var miniAppID: String
    /// Sorted by permission name.
    public var records: [ConsentRecord]
    /// Bumped by every change; part of cache keys that depend on consents.
    public var version: Int64
    /// Last consent change or storage write (nil when never used).
    public var lastUsedAt: Date?

    public init(miniAppID: String, records: [ConsentRecord], version: Int64, lastUsedAt: Date?) {
        self.miniAppID = miniAppID
        self.records = records
        self.version = version
        self.lastUsedAt = lastUsedAt
    }

    /// The status of `permission`, nil when never answered.
    public func status(of permission: String) -> ConsentStatus? {
        records.first { $0.permission == permission }?.status
    }
}
