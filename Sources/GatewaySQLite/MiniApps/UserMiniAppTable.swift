import GatewayCore
import GRDB

/// SQL on `user_miniapps`: the per (tenant, user, mini app) row holding the consent
/// version, storage usage and last use. Call only inside a write transaction.
enum UserMiniAppTable {
    struct Row {
        var consentVersion: Int64
        var storageUsedBytes: Int64
        var storageItemCount: Int
        var lastUsedAtMs: Int64
    }

    static let whereOwner = "tenant_id = ? AND user_id = ? AND miniapp_id = ?"

    static func arguments(_ owner: UserMiniAppKey) -> StatementArguments {
        [owner.tenantID, owner.userID, owner.miniAppID]
    }

    static func fetch(_ db: Database, _ owner: UserMiniAppKey) throws -> Row? {
        let sql =
            "SELECT consent_version, storage_used_bytes, storage_item_count, last_used_at_ms FROM user_miniapps WHERE \(whereOwner)"
        return try GRDB.Row.fetchOne(db, sql: sql, arguments: arguments(owner)).map {
            Row(consentVersion: $0[0], storageUsedBytes: $0[1], storageItemCount: $0[2], lastUsedAtMs: $0[3])
        }
    }

    /// Creates the row if needed and stamps last use.
    static func touch(_ db: Database, _ owner: UserMiniAppKey, atMs: Int64) throws {
        try db.execute(sql: """
            INSERT INTO user_miniapps (tenant_id, user_id, miniapp_id, last_used_at_ms) VALUES (?, ?, ?, ?)
            ON CONFLICT (tenant_id, user_id, miniapp_id) DO UPDATE SET last_used_at_ms = excluded.last_used_at_ms
            """, arguments: arguments(owner) + [atMs])
    }

    static func setStorage(
        _ db: Database, _ owner: UserMiniAppKey, usedBytes: Int64, itemCount: Int, atMs: Int64
    ) throws {
        try touch(db, owner, atMs: atMs)
        try db.execute(
            sql: "UPDATE user_miniapps SET storage_used_bytes = ?, storage_item_count = ? WHERE \(whereOwner)",
            arguments: [usedBytes, itemCount] + arguments(owner)
        )
    }

    /// Bumps and returns the consent version.
    static func bumpConsentVersion(_ db: Database, _ owner: UserMiniAppKey, atMs: Int64) throws -> Int64 {
        try touch(db, owner, atMs: atMs)
        try db.execute(
            sql: "UPDATE user_miniapps SET consent_version = consent_version + 1 WHERE \(whereOwner)",
            arguments: arguments(owner))
        return try fetch(db, owner)?.consentVersion ?? 0
    }
}
