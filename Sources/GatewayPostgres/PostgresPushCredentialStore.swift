import Foundation
import GatewayCore
import PostgresNIO

/// ``PushCredentialStore`` on PostgreSQL (`push_credentials`).
public final class PostgresPushCredentialStore: PushCredentialStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func credentials(tenantID: String, provider: PushProvider) async throws -> PushCredentials? {
        let sealed = try await database.pool.column(
            "SELECT sealed FROM push_credentials WHERE tenant_id = \(tenantID) AND provider = \(provider.rawValue)",
            as: String.self
        ).first
        return try sealed.map {
            try PushCredentialRows.open($0, tenantID: tenantID, provider: provider, sealer: database.sealer)
        }
    }

    public func setCredentials(_ credentials: PushCredentials, tenantID: String, now: Date) async throws {
        let sealed = try PushCredentialRows.seal(credentials, tenantID: tenantID, sealer: database.sealer)
        try await database.pool.execute(
            """
            INSERT INTO push_credentials (tenant_id, provider, sealed, updated_at_ms) VALUES (\(tenantID), \(credentials.provider.rawValue), \(sealed), \(StoreClock.milliseconds(now)))
            ON CONFLICT (tenant_id, provider) DO UPDATE SET sealed = excluded.sealed, updated_at_ms = excluded.updated_at_ms
            """)
    }

    public func removeCredentials(tenantID: String, provider: PushProvider) async throws -> Bool {
        try await database.pool.execute(
            "DELETE FROM push_credentials WHERE tenant_id = \(tenantID) AND provider = \(provider.rawValue) RETURNING 1"
        ) > 0
    }
}
