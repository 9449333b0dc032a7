import GatewayCore
import PostgresNIO

/// ``SecureStorageStore`` on PostgreSQL. Values are sealed exactly as in SQLite (same
/// contexts). Each write locks the owner's `user_miniapps` row first, then checks the cap
/// against the usage kept there and writes items and usage in the same transaction: writers
/// in any number of processes never pass the cap, and a refused write stores nothing.
public final class PostgresSecureStorageStore: SecureStorageStore {
    private let database: PostgresDatabase
    private let limits: SecureStorageLimits

    public init(database: PostgresDatabase, limits: SecureStorageLimits = SecureStorageLimits()) {
        self.database = database
        self.limits = limits
    }

    @discardableResult
    public func put(
        _ items: [String: String], for owner: UserMiniAppKey, maxBytes: Int64
    ) async throws -> SecureStorageSize {
        let write = try SecureStorageWrite(
            items, for: owner, maxBytes: maxBytes, limits: limits, sealer: database.sealer)
        let keys = write.keys
        let values = write.items.map(\.sealed)
        let sizes = write.items.map(\.size)
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await database.transaction { connection in
            let state = try await PostgresUserMiniApps.lock(connection, owner, atMs: now)
            var stored: [String: Int64] = [:]
            for (key, size) in try await connection.all("""
                SELECT key, size_bytes FROM secure_storage_items
                WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID) AND key = ANY(\(keys))
                """, as: (String, Int64).self) {
                stored[key] = size
            }
            let after = try write.usage(now: state.storageUsedBytes, itemCount: state.storageItemCount) { stored[$0] }
            try await connection.execute("""
                INSERT INTO secure_storage_items (tenant_id, user_id, miniapp_id, key, value_sealed, size_bytes, updated_at_ms)
                SELECT \(owner.tenantID), \(owner.userID), \(owner.miniAppID), k, v, s, \(now) FROM unnest(\(keys)::text[], \(values)::text[], \(sizes)::bigint[]) AS i(k, v, s)
                ON CONFLICT (tenant_id, user_id, miniapp_id, key) DO UPDATE SET
                    value_sealed = excluded.value_sealed, size_bytes = excluded.size_bytes, updated_at_ms = excluded.updated_at_ms
                """)
            try await PostgresUserMiniApps.setStorage(
                connection, owner, usedBytes: after.usedBytes, itemCount: after.itemCount)
            return SecureStorageSize(used: after.usedBytes, max: maxBytes)
        }
    }

    public func value(forKey key: String, of owner: UserMiniAppKey) async throws -> String {
        try limits.check(key: key)
        let sealed = try await database.pool.first("""
            SELECT value_sealed FROM secure_storage_items
            WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID) AND key = \(key)
            """, as: String.self)
        guard let sealed else { throw SecureStorageError.notFound(key: key) }
        return try database.sealer.open(sealed, context: owner.storageSealingContext(key: key))
    }

    @discardableResult
    public func delete(keys: [String], for owner: UserMiniAppKey, maxBytes: Int64) async throws -> SecureStorageSize {
        try limits.check(count: keys.count)
        for key in keys { try limits.check(key: key) }
        let unique = Array(Set(keys))
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await database.transaction { connection in
            guard try await PostgresUserMiniApps.fetch(connection, owner) != nil else {
                return SecureStorageSize(used: 0, max: maxBytes)
            }
            let state = try await PostgresUserMiniApps.lock(connection, owner, atMs: now)
            let removed = try await connection.column("""
                DELETE FROM secure_storage_items
                WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID) AND key = ANY(\(unique))
                RETURNING size_bytes
                """, as: Int64.self)
            let used = state.storageUsedBytes - removed.reduce(0, +)
            try await PostgresUserMiniApps.setStorage(
                connection, owner, usedBytes: used, itemCount: state.storageItemCount - Int64(removed.count))
            return SecureStorageSize(used: used, max: maxBytes)
        }
    }

    @discardableResult
    public func deleteAll(
        for owner: UserMiniAppKey, trail: (@Sendable (_ removed: Int) -> AuditDraft)?
    ) async throws -> Int {
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await database.transaction { connection in
            guard try await PostgresUserMiniApps.fetch(connection, owner) != nil else {
                if let trail { _ = try await PostgresAuditTrail.append(trail(0), on: connection) }
                return 0
            }
            try await PostgresUserMiniApps.lock(connection, owner, atMs: now)
            let removed = try await connection.execute("""
                DELETE FROM secure_storage_items WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID) RETURNING 1
                """)
            try await PostgresUserMiniApps.setStorage(connection, owner, usedBytes: 0, itemCount: 0)
            if let trail { _ = try await PostgresAuditTrail.append(trail(removed), on: connection) }
            return removed
        }
    }

    public func size(of owner: UserMiniAppKey, maxBytes: Int64) async throws -> SecureStorageSize {
        let state = try await PostgresUserMiniApps.fetch(database.pool, owner)
        return SecureStorageSize(used: state?.storageUsedBytes ?? 0, max: maxBytes)
    }

    public func usage(
        tenantID: String, userID: String?, after: (userID: String, miniAppID: String)?, limit: Int?
    ) async throws -> [SecureStorageUsage] {
        // Byte order ("C"), as SQLite's: the admin API's cursors order the same on both engines.
        let (afterUser, afterMiniApp) = (after?.userID, after?.miniAppID ?? "")
        let rows = try await database.pool.all(
            """
            SELECT user_id, miniapp_id, storage_used_bytes, storage_item_count, last_used_at_ms FROM user_miniapps
            WHERE tenant_id = \(tenantID) AND storage_item_count > 0
                AND (\(userID)::text IS NULL OR user_id = \(userID))
                AND (\(afterUser)::text IS NULL OR user_id COLLATE "C" > \(afterUser)
                    OR (user_id = \(afterUser) AND miniapp_id COLLATE "C" > \(afterMiniApp)))
            ORDER BY user_id COLLATE "C", miniapp_id COLLATE "C" LIMIT \(limit.map(Int64.init))
            """, as: (String, String, Int64, Int64, Int64).self)
        return rows.map {
            SecureStorageUsage(
                userID: $0.0, miniAppID: $0.1, usedBytes: $0.2, itemCount: Int($0.3), lastUsedAt: StoreClock.date($0.4))
        }
    }
}
