import GatewayCore
import PostgresNIO

/// ``ConsentStore`` on PostgreSQL (`user_consents`, `user_miniapps`). A change locks the
/// owner's `user_miniapps` row, so concurrent writers from any process bump the consent
/// version once per real change.
public final class PostgresConsentStore: ConsentStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func consents(of owner: UserMiniAppKey) async throws -> MiniAppConsents {
        try await Self.read(database.pool, owner)
    }

    @discardableResult
    public func setConsents(
        _ changes: [String: ConsentStatus], for owner: UserMiniAppKey
    ) async throws -> MiniAppConsents {
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await database.transaction { connection in
            try await PostgresUserMiniApps.lock(connection, owner, atMs: now)
            let current = try await Self.read(connection, owner)
            let changed = changes.filter { current.status(of: $0.key) != $0.value }.sorted { $0.key < $1.key }
            if !changed.isEmpty {
                try await connection.execute("""
                    INSERT INTO user_consents (tenant_id, user_id, miniapp_id, permission, status, updated_at_ms)
                    SELECT \(owner.tenantID), \(owner.userID), \(owner.miniAppID), p, s, \(now)
                    FROM unnest(\(changed.map(\.key))::text[], \(changed.map(\.value.rawValue))::text[]) AS c(p, s)
                    ON CONFLICT (tenant_id, user_id, miniapp_id, permission) DO UPDATE SET status = excluded.status, updated_at_ms = excluded.updated_at_ms
                    """)
                try await connection.execute("""
                    UPDATE user_miniapps SET consent_version = consent_version + 1
                    WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID)
                    """)
            }
            return try await Self.read(connection, owner)
        }
    }

    public func userMiniApps(tenantID: String, userID: String, limit: Int?) async throws -> [MiniAppConsents] {
        let limit = limit.map { Int64(max(0, $0)) } ?? Int64.max
        let ids = try await database.pool.column("""
            SELECT miniapp_id FROM user_miniapps WHERE tenant_id = \(tenantID) AND user_id = \(userID)
            ORDER BY last_used_at_ms DESC, miniapp_id COLLATE "C" LIMIT \(limit)
            """, as: String.self)
        var result: [MiniAppConsents] = []
        for id in ids {
            result.append(
                try await Self.read(database.pool, UserMiniAppKey(tenantID: tenantID, userID: userID, miniAppID: id)))
        }
        return result
    }

    public func touch(_ owner: UserMiniAppKey) async throws {
        try await database.pool.execute("""
            INSERT INTO user_miniapps (tenant_id, user_id, miniapp_id, last_used_at_ms)
            VALUES (\(owner.tenantID), \(owner.userID), \(owner.miniAppID), \(StoreClock.milliseconds(StoreClock.now())))
            ON CONFLICT (tenant_id, user_id, miniapp_id) DO UPDATE SET last_used_at_ms = excluded.last_used_at_ms
            """)
    }

    private static func read(_ runner: some SQLRunner, _ owner: UserMiniAppKey) async throws -> MiniAppConsents {
        let rows = try await runner.all("""
            SELECT permission, status, updated_at_ms FROM user_consents
            WHERE tenant_id = \(owner.tenantID) AND user_id = \(owner.userID) AND miniapp_id = \(owner.miniAppID) ORDER BY permission COLLATE "C"
            """, as: (String, String, Int64).self)
        let records = rows.compactMap { permission, status, at in
            ConsentStatus(rawValue: status).map {
                ConsentRecord(permission: permission, status: $0, updatedAt: StoreClock.date(at))
            }
        }
        let state = try await PostgresUserMiniApps.fetch(runner, owner)
        return MiniAppConsents(miniAppID: owner.miniAppID, records: records, version: state?.consentVersion ?? 0,
                               lastUsedAt: state.map { StoreClock.date($0.lastUsedAtMs) })
    }
}
