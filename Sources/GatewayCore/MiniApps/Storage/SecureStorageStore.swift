import Foundation

/// A user's key/value store for one mini app, shared across the user's devices.
///
/// Keys and values are strings; values are sealed at rest. The cap (``Tenant/storageMaxSizeInBytes``)
/// counts UTF-8 key + value bytes of every stored item; a write that would pass it is
/// refused whole with ``SecureStorageError/storageFull(used:requested:max:)``, checked
/// atomically against concurrent writers.
public protocol SecureStorageStore: Sendable {
    /// Stores every item (replacing existing keys) or none. Returns the size afterwards.
    @discardableResult
    func put(_ items: [String: String], for owner: UserMiniAppKey, maxBytes: Int64) async throws -> SecureStorageSize
    /// The value of `key`; throws ``SecureStorageError/notFound(key:)`` when absent.
    func value(forKey key: String, of owner: UserMiniAppKey) async throws -> String
    /// Removes `keys` (absent keys are ignored). Returns the size afterwards.
    @discardableResult
    func delete(keys: [String], for owner: UserMiniAppKey, maxBytes: Int64) async throws -> SecureStorageSize
    /// Removes every item of `owner`; returns how many there were. `trail(removed)`, when
    /// given, is appended to the operators' audit trail in the same transaction.
    @discardableResult
    func deleteAll(for owner: UserMiniAppKey, trail: (@Sendable (_ removed: Int) -> AuditDraft)?) async throws -> Int
    /// Bytes used by `owner` and the cap.
    func size(of owner: UserMiniAppKey, maxBytes: Int64) async throws -> SecureStorageSize
    /// Usage rows of a tenant (optionally one user), by user then mini app (bytes of each);
    /// owners with no items are left out. `after` starts past that user and mini app; `limit`
    /// bounds the rows (nil: all).
    func usage(
        tenantID: String, userID: String?, after: (userID: String, miniAppID: String)?, limit: Int?
    ) async throws -> [SecureStorageUsage]
}

/// `{used, max}` in bytes.
public struct SecureStorageSize: Sendable, Equatable, Codable {
    /// UTF-8 key + value bytes stored.
    public var used: Int64
    /// The tenant's cap.
    public var max: Int64

    public init(used: Int64, max: Int64) {
        self.used = used
        self.max = max
    }
}

/// One owner's usage, for operators.
extension SecureStorageStore {
    /// Every usage row of a tenant (optionally one user).
    public func usage(tenantID: String, userID: String?) async throws -> [SecureStorageUsage] {
        try await usage(tenantID: tenantID, userID: userID, after: nil, limit: nil)
    }

    /// Removes every item of `owner` without an audit record (a user's own wipe, an erasure).
    @discardableResult
    public func deleteAll(for owner: UserMiniAppKey) async throws -> Int {
        try await deleteAll(for: owner, trail: nil)
    }
}

public struct SecureStorageUsage: Sendable, Equatable, Codable {
    /// The user (token `sub`).
    public var userID: String
    /// The mini app.
    public var miniAppID: String
    /// UTF-8 key + value bytes stored.
    public var usedBytes: Int64
    /// Number of stored keys.
    public var itemCount: Int
    /// Last write or consent change for this mini app.
    public var lastUsedAt: Date

    public init(userID: String, miniAppID: String, usedBytes: Int64, itemCount: Int, lastUsedAt: Date) {
        self.userID = userID
        self.miniAppID = miniAppID
        self.usedBytes = usedBytes
        self.itemCount = itemCount
        self.lastUsedAt = lastUsedAt
    }
}
