import Foundation
import GatewayCore
import PostgresNIO

/// ``ReleasePolicyStore`` on PostgreSQL (`release_policies`, `release_history`). Writes
/// bump the store's change counter, so gateways reload the tenant.
public final class PostgresReleasePolicyStore: ReleasePolicyStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func policy(tenantID: String, miniAppID: String) async throws -> ReleasePolicy? {
        try await database.pool.first(
            """
            SELECT document, revision, updated_at_ms FROM release_policies WHERE tenant_id = \(tenantID) AND mini_app_id = \(miniAppID)
            """, as: (String, Int64, Int64).self
        ).map(Self.policy)
    }

    public func policies(tenantID: String) async throws -> [ReleasePolicy] {
        let query: PostgresQuery = """
            SELECT document, revision, updated_at_ms FROM release_policies WHERE tenant_id = \(tenantID) ORDER BY mini_app_id COLLATE "C"
            """
        // The release table reads here when the tenant directory refreshes: then outside the pool.
        let rows =
            DatabaseBudget.outsideThePool
            ? try await database.fresh.withConnection { try await $0.all(query, as: (String, Int64, Int64).self) }
            : try await database.pool.all(query, as: (String, Int64, Int64).self)
        return try rows.map(Self.policy)
    }

    public func allPolicies() async throws -> [ReleasePolicy] {
        try await database.pool.all(
            "SELECT document, revision, updated_at_ms FROM release_policies", as: (String, Int64, Int64).self
        ).map(Self.policy)
    }

    public func save(_ policy: ReleasePolicy, audit: AuditDraft) async throws -> ReleasePolicy {
        let (stored, document, at) = try ReleasePolicyDocument.next(policy, at: audit.time)
        let (tenantID, miniAppID, revision) = (policy.tenantID, policy.miniAppID, stored.revision)
        try await database.transaction { connection in
            // One statement decides: a new row, or the stored row while it still has the read
            // revision. A concurrent creator makes this one wait, then see its row and refuse.
            let written = try await connection.execute(
                """
                INSERT INTO release_policies (tenant_id, mini_app_id, document, revision, updated_at_ms)
                VALUES (\(tenantID), \(miniAppID), \(document), \(revision), \(at))
                ON CONFLICT (tenant_id, mini_app_id) DO UPDATE SET document = excluded.document,
                    revision = excluded.revision, updated_at_ms = excluded.updated_at_ms
                WHERE release_policies.revision = \(policy.revision)
                RETURNING 1
                """)
            guard written > 0 else {
                let current = try await connection.first(
                    "SELECT revision FROM release_policies WHERE tenant_id = \(tenantID) AND mini_app_id = \(miniAppID)",
                    as: Int64.self)
                throw ReleasePolicyError.conflict(storedRevision: current ?? 0)
            }
            _ = try await PostgresAuditTrail.append(audit, on: connection)
            try await PostgresTenantStore.bumpChangeCounter(connection, tenants: [tenantID])
        }
        return stored
    }

    public func history(tenantID: String, miniAppID: String, limit: Int) async throws -> [ReleaseHistoryEntry] {
        try await ReleaseTrail.history(
            trail: PostgresAuditTrail(database: database), tenantID: tenantID, miniAppID: miniAppID,
            limit: ReleasePolicyDocument.historyLimit(limit)
        ) { try await self.legacyHistory(tenantID: tenantID, miniAppID: miniAppID, limit: $0) }
    }

    /// `release_history`: the log the trail replaced (`v31-audit-views`), read, no longer written.
    private func legacyHistory(tenantID: String, miniAppID: String, limit: Int) async throws -> [ReleaseHistoryEntry] {
        let rows = try await database.pool.all(
            """
            SELECT at_ms, actor, action, summary, reason FROM release_history
            WHERE tenant_id = \(tenantID) AND mini_app_id = \(miniAppID) ORDER BY id DESC LIMIT \(limit)
            """, as: (Int64, String, String, String, String?).self)
        return try rows.map {
            try ReleasePolicyDocument.historyEntry(atMs: $0.0, actor: $0.1, action: $0.2, summary: $0.3, reason: $0.4)
        }
    }

    private static func policy(_ row: (String, Int64, Int64)) throws -> ReleasePolicy {
        try ReleasePolicyDocument.decode(row.0, revision: row.1, updatedAtMs: row.2)
    }
}
