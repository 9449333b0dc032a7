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

    public func setCredentials(_ credentials: PushCredentials, tenantID: String, now: Date) async throws {
        let sealed = try PushCredentialRows.seal(credentials, tenantID: tenantID, sealer: sealer)
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO push_credentials (tenant_id, provider, sealed, updated_at_ms) VALUES (?, ?, ?, ?)
                    ON CONFLICT (tenant_id, provider) DO UPDATE SET sealed = excluded.sealed,
                        updated_at_ms = excluded.updated_at_ms
                    """,
                arguments: [tenantID, credentials.provider.rawValue, sealed, StoreClock.milliseconds(now)])
        }
    }

    public func removeCredentials(tenantID: String, provider: PushProvider) async throws -> Bool {
        try await pool.changes(
            sql: "DELETE FROM push_credentials WHERE tenant_id = ? AND provider = ?",
            arguments: [tenantID, provider.rawValue]) > 0
    }
}
