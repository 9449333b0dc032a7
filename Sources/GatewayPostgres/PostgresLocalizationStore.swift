import GatewayCore
import PostgresNIO

/// ``LocalizationStore`` on PostgreSQL. Every change bumps the tenant's
/// `localization_state.version` and the store's change counter in its transaction.
public final class PostgresLocalizationStore: LocalizationStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    @discardableResult
    public func set(_ entries: [String: String], tenantID: String, locale: String) async throws -> LocalizationState {
        let normalized = try LocalizationError.checkedLocale(locale, entries: entries)
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await database.transaction { connection in
            if !entries.isEmpty {
                try await connection.execute("""
                    INSERT INTO localization_overrides (tenant_id, locale, key, value, updated_at_ms)
                    SELECT \(tenantID), \(normalized), k, v, \(now) FROM unnest(\(Array(entries.keys))::text[], \(Array(entries.values))::text[]) AS e(k, v)
                    ON CONFLICT (tenant_id, locale, key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms
                    """)
            }
            return try await Self.bump(connection, tenantID: tenantID)
        }
    }

    @discardableResult
    public func unset(_ keys: [String], tenantID: String, locale: String) async throws -> Int {
        let normalized = try LocalizationError.locale(locale)
        return try await database.transaction { connection in
            let removed = try await connection.execute("""
                DELETE FROM localization_overrides WHERE tenant_id = \(tenantID) AND locale = \(normalized) AND key = ANY(\(Array(Set(keys)))) RETURNING 1
                """)
            if removed > 0 { _ = try await Self.bump(connection, tenantID: tenantID) }
            return removed
        }
    }

    public func overrides(tenantID: String, locale: String?) async throws -> [LocalizationOverride] {
        let rows =
            if let locale {
                try await database.pool.all(
                    """
                    SELECT locale, key, value, updated_at_ms FROM localization_overrides WHERE tenant_id = \(tenantID) AND locale = \(try LocalizationError.locale(locale))
                    ORDER BY locale COLLATE "C", key COLLATE "C"
                    """, as: (String, String, String, Int64).self)
            } else {
                try await database.pool.all(
                    """
                    SELECT locale, key, value, updated_at_ms FROM localization_overrides WHERE tenant_id = \(tenantID) ORDER BY locale COLLATE "C", key COLLATE "C"
                    """, as: (String, String, String, Int64).self)
            }
        return rows.map { LocalizationOverride(locale: $0.0, key: $0.1, value: $0.2, updatedAt: StoreClock.date($0.3)) }
    }

    public func state(tenantID: String) async throws -> LocalizationState {
        try await Self.read(database.pool, tenantID: tenantID)
    }

    @discardableResult
    public func setDefaultLocale(_ locale: String?, tenantID: String) async throws -> LocalizationState {
        let normalized = try locale.map { try LocalizationError.locale($0) }
        return try await database.transaction { connection in
            _ = try await Self.bump(connection, tenantID: tenantID)
            try await connection.execute(
                "UPDATE localization_state SET default_locale = \(normalized) WHERE tenant_id = \(tenantID)")
            return try await Self.read(connection, tenantID: tenantID)
        }
    }

    private static func read(_ runner: some SQLRunner, tenantID: String) async throws -> LocalizationState {
        guard
            let (locale, version) = try await runner.first(
                "SELECT default_locale, version FROM localization_state WHERE tenant_id = \(tenantID)",
                as: (String?, Int64).self)
        else { return LocalizationState() }
        return LocalizationState(defaultLocale: locale, version: version)
    }

    private static func bump(_ connection: PostgresConnection, tenantID: String) async throws -> LocalizationState {
        try await connection.execute("""
            INSERT INTO localization_state (tenant_id, version) VALUES (\(tenantID), 1)
            ON CONFLICT (tenant_id) DO UPDATE SET version = localization_state.version + 1
            """)
        try await PostgresTenantStore.bumpChangeCounter(connection, tenants: [tenantID])
        return try await read(connection, tenantID: tenantID)
    }
}
