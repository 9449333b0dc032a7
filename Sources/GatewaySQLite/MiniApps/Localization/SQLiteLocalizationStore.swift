import Foundation
import GatewayCore
import GRDB

/// ``LocalizationStore`` in the tenant store's SQLite file. Every change bumps the
/// tenant's `localization_state.version` and the store's change counter.
public final class SQLiteLocalizationStore: LocalizationStore {
    private let pool: DatabasePool

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
    }

    @discardableResult
    public func set(
        _ entries: [String: String], tenantID: String, locale: String, trail: LocalizationTrail.Texts?
    ) async throws -> LocalizationState {
        let normalized = try LocalizationError.checkedLocale(locale, entries: entries)
        let now = StoreClock.milliseconds(StoreClock.now())
        return try await pool.write { db in
            let (before, versionBefore) = (try Self.texts(db, tenantID, normalized, Array(entries.keys)), try Self.read(db, tenantID: tenantID).version)
            for (key, value) in entries {
                try db.execute(
                    sql: """
                        INSERT INTO localization_overrides (tenant_id, locale, key, value, updated_at_ms) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (tenant_id, locale, key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms
                        """, arguments: [tenantID, normalized, key, value, now])
            }
            let state = try Self.bump(db, tenantID: tenantID)
            if let trail {
                let versions = LocalizationTrail.LocalizationVersions(before: versionBefore, after: state.version)
                _ = try SQLiteAuditTrail.append(trail(normalized, before, entries, versions), in: db)
            }
            return state
        }
    }

    @discardableResult
    public func unset(_ keys: [String], tenantID: String, locale: String, trail: LocalizationTrail.Texts?) async throws -> Int {
        let normalized = try LocalizationError.locale(locale)
        return try await pool.write { db in
            let (before, versionBefore) = (try Self.texts(db, tenantID, normalized, keys), try Self.read(db, tenantID: tenantID).version)
            var removed = 0
            for key in Set(keys) {
                try db.execute(
                    sql: "DELETE FROM localization_overrides WHERE tenant_id = ? AND locale = ? AND key = ?",
                    arguments: [tenantID, normalized, key])
                removed += db.changesCount
            }
            let version = removed > 0 ? try Self.bump(db, tenantID: tenantID).version : versionBefore
            if let trail {
                let versions = LocalizationTrail.LocalizationVersions(before: versionBefore, after: version)
                _ = try SQLiteAuditTrail.append(trail(normalized, before, [:], versions), in: db)
            }
            return removed
        }
    }

    public func overrides(tenantID: String, locale: String?) async throws -> [LocalizationOverride] {
        var normalized: String?
        if let locale { normalized = try LocalizationError.locale(locale) }
        let filter = normalized
        return try await pool.read { db in
            var sql = "SELECT locale, key, value, updated_at_ms FROM localization_overrides WHERE tenant_id = ?"
            var arguments: StatementArguments = [tenantID]
            if let filter {
                sql += " AND locale = ?"
                arguments += [filter]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY locale, key", arguments: arguments).map {
                LocalizationOverride(locale: $0[0], key: $0[1], value: $0[2], updatedAt: StoreClock.date($0[3]))
            }
        }
    }

    public func state(tenantID: String) async throws -> LocalizationState {
        try await pool.read { db in try Self.read(db, tenantID: tenantID) }
    }

    @discardableResult
    public func setDefaultLocale(
        _ locale: String?, tenantID: String, trail: LocalizationTrail.Default?
    ) async throws -> LocalizationState {
        var normalized: String?
        if let locale { normalized = try LocalizationError.locale(locale) }
        let value = normalized
        return try await pool.write { db in
            let before = try Self.read(db, tenantID: tenantID)
            _ = try Self.bump(db, tenantID: tenantID)
            try db.execute(
                sql: "UPDATE localization_state SET default_locale = ? WHERE tenant_id = ?",
                arguments: [value, tenantID])
            let after = try Self.read(db, tenantID: tenantID)
            if let trail { _ = try SQLiteAuditTrail.append(trail(before, after), in: db) }
            return after
        }
    }

    /// The texts of `keys` in `locale` now (keys without an override are absent).
    private static func texts(_ db: Database, _ tenantID: String, _ locale: String, _ keys: [String]) throws -> [String: String] {
        var found: [String: String] = [:]
        for key in Set(keys) {
            found[key] = try String.fetchOne(
                db, sql: "SELECT value FROM localization_overrides WHERE tenant_id = ? AND locale = ? AND key = ?",
                arguments: [tenantID, locale, key])
        }
        return found
    }

    private static func read(_ db: Database, tenantID: String) throws -> LocalizationState {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT default_locale, version FROM localization_state WHERE tenant_id = ?",
                arguments: [tenantID])
        else {
            return LocalizationState()
        }
        return LocalizationState(defaultLocale: row[0], version: row[1])
    }

    private static func bump(_ db: Database, tenantID: String) throws -> LocalizationState {
        try db.execute(sql: """
            INSERT INTO localization_state (tenant_id, version) VALUES (?, 1)
            ON CONFLICT (tenant_id) DO UPDATE SET version = version + 1
            """, arguments: [tenantID])
        try SQLiteTenantStore.bumpChangeCounter(db, tenants: [tenantID])
        return try read(db, tenantID: tenantID)
    }
}
