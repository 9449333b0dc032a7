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

    public func setCredentials(
        _ credentials: PushCredentials, tenantID: String, now: Date, trail: (@Sendable (PushCredentials?) -> AuditDraft)?
    ) async throws {
        let sealer = database.sealer
        let sealed = try PushCredentialRows.seal(credentials, tenantID: tenantID, sealer: sealer)
        let provider = credentials.provider
        try await database.transaction { connection in
            let old = try await Self.current(connection, tenantID: tenantID, provider: provider, sealer: sealer)
            try await connection.execute("""
                INSERT INTO push_credentials (tenant_id, provider, sealed, updated_at_ms)
                VALUES (\(tenantID), \(provider.rawValue), \(sealed), \(StoreClock.milliseconds(now)))
                ON CONFLICT (tenant_id, provider) DO UPDATE SET sealed = excluded.sealed, updated_at_ms = excluded.updated_at_ms
                """)
            if let trail { _ = try await PostgresAuditTrail.append(trail(old), on: connection) }
        }
    }

    public func removeCredentials(
        tenantID: String, provider: PushProvider, trail: (@Sendable (PushCredentials) -> AuditDraft)?
    ) async throws -> Bool {
        let sealer = database.sealer
        return try await database.transaction { connection in
            guard let old = try await Self.current(connection, tenantID: tenantID, provider: provider, sealer: sealer) else {
                return false
            }
            try await connection.execute(
                "DELETE FROM push_credentials WHERE tenant_id = \(tenantID) AND provider = \(provider.rawValue)")
            if let trail { _ = try await PostgresAuditTrail.append(trail(old), on: connection) }
            return true
        }
    }

    /// The credentials stored now, their row locked until the transaction ends.
    private static func current(
        _ connection: PostgresConnection, tenantID: String, provider: PushProvider, sealer: SecretSealer
    ) async throws -> PushCredentials? {
        try await connection.first(
            "SELECT sealed FROM push_credentials WHERE tenant_id = \(tenantID) AND provider = \(provider.rawValue) FOR UPDATE",
            as: String.self
        ).map { try PushCredentialRows.open($0, tenantID: tenantID, provider: provider, sealer: sealer) }
    }
}
