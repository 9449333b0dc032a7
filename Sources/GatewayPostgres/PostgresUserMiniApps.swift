import GatewayCore
import PostgresNIO

/// SQL on `user_miniapps`, the per (tenant, user, mini app) row with the consent version,
/// storage usage and last use. ``lock(_:_:atMs:)`` serializes writers of one owner across
/// processes: call it first in every write transaction of an owner.
enum PostgresUserMiniApps {
    struct State {
        var consentVersion: Int64
        var storageUsedBytes: Int64
        var storageItemCount: Int64
        var lastUsedAtMs: Int64
    }

    /// Creates the row if needed, stamps last use, and locks it until the transaction ends.
    @discardableResult
    static func lock(_ connection: PostgresConnection, _ owner: UserMiniAppKey, atMs: Int64) async throws -> State {
        let row = try await connection.first("""
            INSERT INTO user_miniapps (tenant_id, user_id, miniapp_id, last_used_at_ms) VALUES (\(owner.tenantID), \(owner.userID), \(owner.miniAppID), \(atMs))
            ON CONFLICT (tenant_id, user_id, miniapp_id) DO UPDATE SET last_used_at_ms = excluded.last_used_at_ms
            RETURNING consent_version, storage_used_bytes, storage_item_count, last_used_at_ms
            """, as: (Int64, Int64, Int64, Int64).self)
        guard let row else { throw PostgresStoreError.missingRow("user_miniapps") }
        return State(consentVersion: row.0, storageUsedBytes: row.1, storageItemCount: row.2, lastUsedAtMs: row.3)
    }

    static func fetch(_ runner: some SQLRunner, _ owner: UserMiniAppKey) async throws -> State? {
        try await runner.first("""
            SELECT consent_version, storage_used_bytes, storage_item_count, last_used_at_ms FROM user_miniapps
            WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID)
            """, as: (Int64, Int64, Int64, Int64).self
        ).map { State(consentVersion: $0.0, storageUsedBytes: $0.1, storageItemCount: $0.2, lastUsedAtMs: $0.3) }
    }

    static func setStorage(
        _ connection: PostgresConnection, _ owner: UserMiniAppKey, usedBytes: Int64, itemCount: Int64
    ) async throws {
        try await connection.execute(
            """
            UPDATE user_miniapps SET storage_used_bytes = \(usedBytes), storage_item_count = \(itemCount)
            WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID)
            """)
    }
}

/// What a PostgreSQL store finds broken in the database itself.
enum PostgresStoreError: Error, CustomStringConvertible {
    case missingRow(String)

    var description: String {
        switch self {
        case .missingRow(let table): "expected a row in \(table), found none"
        }
    }
}
