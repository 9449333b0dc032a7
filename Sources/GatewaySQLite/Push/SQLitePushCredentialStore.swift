import Foundation
import GatewayCore
import GRDB

/// ``PushCredentialStore`` in the tenant store's SQLite file (`push_credentials`).
public final class SQLitePushCredentialStore: PushCredentialStore {
    private let pool: DatabasePool
    private let sealer: SecretSealer

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
        self.sealer = database.sealer
    }

    public func credentials(tenantID: String, provider: PushProvider) async throws -> PushCredentials? {
        let sealed = try await pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT sealed FROM push_credentials WHERE tenant_id = ? AND provider = ?",
                arguments: [tenantID, provider.rawValue])
        }
        return try sealed.map { try PushCredentialRows.open($0, tenantID: tenantID, provider: provider, sealer: sealer) }
    }

    public func setCredentials(
        _ credentials: PushCredentials, tenantID: String, now: Date, trail: (@Sendable (PushCredentials?) -> AuditDraft)?
    ) async throws {
        let sealed = try PushCredentialRows.seal(credentials, tenantID: tenantID, sealer: sealer)
        let sealer = self.sealer
        try await pool.write { db in
            let old = try Self.current(db, tenantID: tenantID, provider: credentials.provider, sealer: sealer)
            try db.execute(
                sql: """
                    INSERT INTO push_credentials (tenant_id, provider, sealed, updated_at_ms) VALUES (?, ?, ?, ?)
                    ON CONFLICT (tenant_id, provider) DO UPDATE SET sealed = excluded.sealed,
                        updated_at_ms = excluded.updated_at_ms
                    """,
                arguments: [tenantID, credentials.provider.rawValue, sealed, StoreClock.milliseconds(now)])
            if let trail { _ = try SQLiteAuditTrail.append(trail(old), in: db) }
        }
    }

    public func removeCredentials(
        tenantID: String, provider: PushProvider, trail: (@Sendable (PushCredentials) -> AuditDraft)?
    ) async throws -> Bool {
        let sealer = self.sealer
        return try await pool.write { db in
            guard let old = try Self.current(db, tenantID: tenantID, provider: provider, sealer: sealer) else { return false }
            try db.execute(
                sql: "DELETE FROM push_credentials WHERE tenant_id = ? AND provider = ?", arguments: [tenantID, provider.rawValue])
            if let trail { _ = try SQLiteAuditTrail.append(trail(old), in: db) }
            return true
        }
    }

    /// The credentials stored now, inside the caller's transaction.
    private static func current(
        _ db: Database, tenantID: String, provider: PushProvider, sealer: SecretSealer
    ) throws -> PushCredentials? {
        try String.fetchOne(
            db, sql: "SELECT sealed FROM push_credentials WHERE tenant_id = ? AND provider = ?",
            arguments: [tenantID, provider.rawValue]
        ).map { try PushCredentialRows.open($0, tenantID: tenantID, provider: provider, sealer: sealer) }
    }
}
