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
    public func set(
        _ entries: [String: String], tenantID: String, locale: String, trail: LocalizationTrail.Texts?
    ) async throws -> LocalizationState {
        let normalized = try LocalizationError.checkedLocale(locale, entries: entries)
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await database.transaction { connection in
            let versionBefore = try await Self.lockedVersion(connection, tenantID: tenantID)
            let before = try await Self.texts(connection, tenantID, normalized, Array(entries.keys))
            if !entries.isEmpty {
                try await connection.execute("""
                    INSERT INTO localization_overrides (tenant_id, locale, key, value, updated_at_ms)
                    SELECT \(tenantID), \(normalized), k, v, \(now) FROM unnest(\(Array(entries.keys))::text[], \(Array(entries.values))::text[]) AS e(k, v)
                    ON CONFLICT (tenant_id, locale, key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms
                    """)
            }
            let state = try await Self.bump(connection, tenantID: tenantID)
            if let trail {
                let versions = LocalizationTrail.LocalizationVersions(before: versionBefore, after: state.version)
                _ = try await PostgresAuditTrail.append(trail(normalized, before, entries, versions), on: connection)
            }
            return state
        }
    }

    @discardableResult
    public func unset(_ keys: [String], tenantID: String, locale: String, trail: LocalizationTrail.Texts?) async throws -> Int {
        let normalized = try LocalizationError.locale(locale)
        return try await database.transaction { connection in
            let versionBefore = try await Self.lockedVersion(connection, tenantID: tenantID)
            let before = try await Self.texts(connection, tenantID, normalized, keys)
            let removed = try await connection.execute("""
                DELETE FROM localization_overrides WHERE tenant_id = \(tenantID) AND locale = \(normalized) AND key = ANY(\(Array(Set(keys)))) RETURNING 1
                """)
            let version = removed > 0 ? try await Self.bump(connection, tenantID: tenantID).version : versionBefore
            if let trail {
                let versions = LocalizationTrail.LocalizationVersions(before: versionBefore, after: version)
                _ = try await PostgresAuditTrail.append(trail(normalized, before, [:], versions), on: connection)
            }
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
    public func setDefaultLocale(
        _ locale: String?, tenantID: String, trail: LocalizationTrail.Default?
    ) async throws -> LocalizationState {
        let normalized = try locale.map { try LocalizationError.locale($0) }
        return try await database.transaction { connection in
            _ = try await Self.lockedVersion(connection, tenantID: tenantID)
            let before = try await Self.read(connection, tenantID: tenantID)
            _ = try await Self.bump(connection, tenantID: tenantID)
            try await connection.execute(
                "UPDATE localization_state SET default_locale = \(normalized) WHERE tenant_id = \(tenantID)")
            let after = try await Self.read(connection, tenantID: tenantID)
            if let trail { _ = try await PostgresAuditTrail.append(trail(before, after), on: connection) }
            return after
        }
    }

    /// The tenant's version now, its state row locked (created at version 0 when missing) so
    /// concurrent writes of one tenant record their versions in order.
    private static func lockedVersion(_ connection: PostgresConnection, tenantID: String) async throws -> Int64 {
        try await connection.execute("""
            INSERT INTO localization_state (tenant_id, version) VALUES (\(tenantID), 0) ON CONFLICT (tenant_id) DO NOTHING
            """)
        return try await connection.first(
            "SELECT version FROM localization_state WHERE tenant_id = \(tenantID) FOR UPDATE", as: Int64.self) ?? 0
    }

    /// The texts of `keys` in `locale` now (keys without an override are absent).
    private static func texts(
        _ connection: PostgresConnection, _ tenantID: String, _ locale: String, _ keys: [String]
    ) async throws -> [String: String] {
        let rows = try await connection.all("""
            SELECT key, value FROM localization_overrides WHERE tenant_id = \(tenantID) AND locale = \(locale) AND key = ANY(\(Array(Set(keys))))
            """, as: (String, String).self)
        return Dictionary(rows.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
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
