/// Secure storage with the tenant's cap applied (``Tenant/storageMaxSizeInBytes``).
public struct SecureStorageService: Sendable {
    private let store: any SecureStorageStore

    public init(store: any SecureStorageStore) {
        self.store = store
    }

    private func owner(_ tenant: Tenant, _ userID: String, _ miniAppID: String) -> UserMiniAppKey {
        UserMiniAppKey(tenantID: tenant.id, userID: userID, miniAppID: miniAppID)
    }

    /// Stores all items or none; throws ``SecureStorageError/storageFull(used:requested:max:)`` past the cap.
    @discardableResult
    public func put(_ items: [String: String], tenant: Tenant, userID: String, miniAppID: String) async throws -> SecureStorageSize {
        try await store.put(items, for: owner(tenant, userID, miniAppID), maxBytes: tenant.storageMaxSizeInBytes)
    }

    /// One value; throws ``SecureStorageError/notFound(key:)``.
    public func value(forKey key: String, tenant: Tenant, userID: String, miniAppID: String) async throws -> String {
        try await store.value(forKey: key, of: owner(tenant, userID, miniAppID))
    }

    /// Removes the given keys.
    @discardableResult
    public func delete(keys: [String], tenant: Tenant, userID: String, miniAppID: String) async throws -> SecureStorageSize {
        try await store.delete(keys: keys, for: owner(tenant, userID, miniAppID), maxBytes: tenant.storageMaxSizeInBytes)
    }

    /// Removes everything of the user for the mini app.
    @discardableResult
    public func deleteAll(tenant: Tenant, userID: String, miniAppID: String) async throws -> Int {
        try await store.deleteAll(for: owner(tenant, userID, miniAppID))
    }

    /// `{used, max}`.
    public func size(tenant: Tenant, userID: String, miniAppID: String) async throws -> SecureStorageSize {
        try await store.size(of: owner(tenant, userID, miniAppID), maxBytes: tenant.storageMaxSizeInBytes)
    }
}
