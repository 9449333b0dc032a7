/// Secure storage with the tenant's cap applied (``Tenant/storageMaxSizeInBytes``). Like
/// ``ConsentService``, each operation takes its owner whole; those the cap bears on take the
/// owner's tenant too.
public struct SecureStorageService: Sendable {
    private let store: any SecureStorageStore

    public init(store: any SecureStorageStore) {
        self.store = store
    }

    /// Stores all items or none; throws ``SecureStorageError/storageFull(used:requested:max:)`` past the cap.
    @discardableResult
    public func put(
        _ items: [String: String], for owner: UserMiniAppKey, in tenant: Tenant
    ) async throws -> SecureStorageSize {
        try await store.put(items, for: owner, maxBytes: tenant.storageMaxSizeInBytes)
    }

    /// One value; throws ``SecureStorageError/notFound(key:)``.
    public func value(forKey key: String, of owner: UserMiniAppKey) async throws -> String {
        try await store.value(forKey: key, of: owner)
    }

    /// Removes the given keys.
    @discardableResult
    public func delete(keys: [String], for owner: UserMiniAppKey, in tenant: Tenant) async throws -> SecureStorageSize {
        try await store.delete(keys: keys, for: owner, maxBytes: tenant.storageMaxSizeInBytes)
    }

    /// Removes everything of the user for the mini app.
    @discardableResult
    public func deleteAll(for owner: UserMiniAppKey) async throws -> Int {
        try await store.deleteAll(for: owner)
    }

    /// `{used, max}`.
    public func size(of owner: UserMiniAppKey, in tenant: Tenant) async throws -> SecureStorageSize {
        try await store.size(of: owner, maxBytes: tenant.storageMaxSizeInBytes)
    }
}
