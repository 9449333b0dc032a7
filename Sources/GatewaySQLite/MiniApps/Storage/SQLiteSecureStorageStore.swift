import Foundation
import GatewayCore
import GRDB

/// ``SecureStorageStore`` in the tenant store's SQLite file.
///
/// Values are sealed with the ``SecretSealer`` under a context binding tenant, user,
/// mini app and key, so a sealed value moved to another row does not open. Usage is
/// kept in `user_miniapps.storage_used_bytes` and checked and updated in the same
/// IMMEDIATE transaction as the items, so concurrent writers (even other processes)
/// never overshoot the cap.
public final class SQLiteSecureStorageStore: SecureStorageStore {
    private let pool: DatabasePool
    private let sealer: SecretSealer
    private let limits: SecureStorageLimits

    /// A store sharing `database`'s file, connection pool and master key.
    public init(database: SQLiteTenantStore, limits: SecureStorageLimits = SecureStorageLimits()) {
        self.pool = database.pool
        self.sealer = database.sealer
        self.limits = limits
    }

    @discardableResult
    public func put(
        _ items: [String: String], for owner: UserMiniAppKey, maxBytes: Int64
    ) async throws -> SecureStorageSize {
        let write = try SecureStorageWrite(items, for: owner, maxBytes: maxBytes, limits: limits, sealer: sealer)
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await pool.write { db in
            let row = try UserMiniAppTable.fetch(db, owner)
            var stored: [String: Int64] = [:]
            for key in write.keys {
                stored[key] = try Int64.fetchOne(
                    db,
                    sql: "SELECT size_bytes FROM secure_storage_items WHERE \(UserMiniAppTable.whereOwner) AND key = ?",
                    arguments: UserMiniAppTable.arguments(owner) + [key])
            }
            let after = try write.usage(now: row?.storageUsedBytes ?? 0, itemCount: Int64(row?.storageItemCount ?? 0)) {
                stored[$0]
            }
            for item in write.items {
                try db.execute(
                    sql: """
                        INSERT INTO secure_storage_items (tenant_id, user_id, miniapp_id, key, value_sealed, size_bytes, updated_at_ms)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (tenant_id, user_id, miniapp_id, key) DO UPDATE SET
                            value_sealed = excluded.value_sealed, size_bytes = excluded.size_bytes, updated_at_ms = excluded.updated_at_ms
                        """, arguments: UserMiniAppTable.arguments(owner) + [item.key, item.sealed, item.size, now])
            }
            try UserMiniAppTable.setStorage(
                db, owner, usedBytes: after.usedBytes, itemCount: Int(after.itemCount), atMs: now)
            return SecureStorageSize(used: after.usedBytes, max: maxBytes)
        }
    }

    public func value(forKey key: String, of owner: UserMiniAppKey) async throws -> String {
        try limits.check(key: key)
        let sealed = try await pool.read { db in
            try String.fetchOne(
                db,
                sql: "SELECT value_sealed FROM secure_storage_items WHERE \(UserMiniAppTable.whereOwner) AND key = ?",
                arguments: UserMiniAppTable.arguments(owner) + [key])
        }
        guard let sealed else { throw SecureStorageError.notFound(key: key) }
        return try sealer.open(sealed, context: owner.storageSealingContext(key: key))
    }

    @discardableResult
    public func delete(keys: [String], for owner: UserMiniAppKey, maxBytes: Int64) async throws -> SecureStorageSize {
        try limits.check(count: keys.count)
        for key in keys { try limits.check(key: key) }
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await pool.write { db in
            guard let row = try UserMiniAppTable.fetch(db, owner) else {
                return SecureStorageSize(used: 0, max: maxBytes)
            }
            var used = row.storageUsedBytes
            var count = row.storageItemCount
            for key in Set(keys) {
                let args = UserMiniAppTable.arguments(owner) + [key]
                guard
                    let size = try Int64.fetchOne(
                        db,
                        sql:
                            "SELECT size_bytes FROM secure_storage_items WHERE \(UserMiniAppTable.whereOwner) AND key = ?",
                        arguments: args)
                else { continue }
                try db.execute(
                    sql: "DELETE FROM secure_storage_items WHERE \(UserMiniAppTable.whereOwner) AND key = ?",
                    arguments: args)
                used -= size
                count -= 1
            }
            try UserMiniAppTable.setStorage(db, owner, usedBytes: used, itemCount: count, atMs: now)
            return SecureStorageSize(used: used, max: maxBytes)
        }
    }

    @discardableResult
    public func deleteAll(
        for owner: UserMiniAppKey, trail: (@Sendable (_ removed: Int) -> AuditDraft)?
    ) async throws -> Int {
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM secure_storage_items WHERE \(UserMiniAppTable.whereOwner)",
                arguments: UserMiniAppTable.arguments(owner))
            let removed = db.changesCount
            if try UserMiniAppTable.fetch(db, owner) != nil {
                try UserMiniAppTable.setStorage(db, owner, usedBytes: 0, itemCount: 0, atMs: now)
            }
            if let trail { _ = try SQLiteAuditTrail.append(trail(removed), in: db) }
            return removed
        }
    }

    public func size(of owner: UserMiniAppKey, maxBytes: Int64) async throws -> SecureStorageSize {
        let used = try await pool.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT storage_used_bytes FROM user_miniapps WHERE \(UserMiniAppTable.whereOwner)",
                arguments: UserMiniAppTable.arguments(owner))
        }
        return SecureStorageSize(used: used ?? 0, max: maxBytes)
    }

    public func usage(
        tenantID: String, userID: String?, after: (userID: String, miniAppID: String)?, limit: Int?
    ) async throws -> [SecureStorageUsage] {
        try await pool.read { db in
            var sql =
                "SELECT user_id, miniapp_id, storage_used_bytes, storage_item_count, last_used_at_ms FROM user_miniapps WHERE tenant_id = ? AND storage_item_count > 0"
            var arguments: StatementArguments = [tenantID]
            if let userID {
                sql += " AND user_id = ?"
                arguments += [userID]
            }
            if let after {
                sql += " AND (user_id > ? OR (user_id = ? AND miniapp_id > ?))"
                arguments += [after.userID, after.userID, after.miniAppID]
            }
            sql += " ORDER BY user_id, miniapp_id"
            if let limit {
                sql += " LIMIT ?"
                arguments += [limit]
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map {
                SecureStorageUsage(
                    userID: $0[0], miniAppID: $0[1], usedBytes: $0[2], itemCount: $0[3],
                    lastUsedAt: StoreClock.date($0[4]))
            }
        }
    }
}
