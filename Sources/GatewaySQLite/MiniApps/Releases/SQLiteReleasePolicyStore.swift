import Foundation
import GatewayCore
import GRDB

/// ``ReleasePolicyStore`` in the tenant store's SQLite file (`release_policies`; the
/// history is a view of the audit trail). Writes bump the store's change counter, so gateways reload the tenant.
public final class SQLiteReleasePolicyStore: ReleasePolicyStore {
    private let pool: DatabasePool
    private let trail: SQLiteAuditTrail

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
        self.trail = SQLiteAuditTrail(database: database)
    }

    public func policy(tenantID: String, miniAppID: String) async throws -> ReleasePolicy? {
        // Rows are not Sendable: read plain values, so the async (non-blocking) read applies.
        let row = try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT document, revision, updated_at_ms FROM release_policies WHERE tenant_id = ? AND mini_app_id = ?
                    """, arguments: [tenantID, miniAppID]
            ).map(Self.values)
        }
        return try row.map(Self.policy)
    }

    public func policies(tenantID: String) async throws -> [ReleasePolicy] {
        let rows = try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT document, revision, updated_at_ms FROM release_policies WHERE tenant_id = ? ORDER BY mini_app_id
                    """, arguments: [tenantID]
            ).map(Self.values)
        }
        return try rows.map(Self.policy)
    }

    public func allPolicies() async throws -> [ReleasePolicy] {
        let rows = try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT document, revision, updated_at_ms FROM release_policies").map(Self.values)
        }
        return try rows.map(Self.policy)
    }

    public func save(_ policy: ReleasePolicy, audit: AuditDraft) async throws -> ReleasePolicy {
        let (stored, document, at) = try ReleasePolicyDocument.next(policy, at: audit.time)
        let revision = stored.revision
        try await pool.write { db in
            let current =
                try Int64.fetchOne(
                    db, sql: "SELECT revision FROM release_policies WHERE tenant_id = ? AND mini_app_id = ?",
                    arguments: [policy.tenantID, policy.miniAppID]) ?? 0
            guard current == policy.revision else { throw ReleasePolicyError.conflict(storedRevision: current) }
            try db.execute(
                sql: """
                    INSERT INTO release_policies (tenant_id, mini_app_id, document, revision, updated_at_ms) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (tenant_id, mini_app_id) DO UPDATE SET document = excluded.document,
                        revision = excluded.revision, updated_at_ms = excluded.updated_at_ms
                    """, arguments: [policy.tenantID, policy.miniAppID, document, revision, at])
            _ = try SQLiteAuditTrail.append(audit, in: db)
            try SQLiteTenantStore.bumpChangeCounter(db, tenants: [policy.tenantID])
        }
        return stored
    }

    public func history(tenantID: String, miniAppID: String, limit: Int) async throws -> [ReleaseHistoryEntry] {
        try await ReleaseTrail.history(
            trail: trail, tenantID: tenantID, miniAppID: miniAppID, limit: ReleasePolicyDocument.historyLimit(limit)
        ) { try await self.legacyHistory(tenantID: tenantID, miniAppID: miniAppID, limit: $0) }
    }

    /// `release_history`: the log the trail replaced (`v31-audit-views`), read, no longer written.
    private func legacyHistory(tenantID: String, miniAppID: String, limit: Int) async throws -> [ReleaseHistoryEntry] {
        let rows = try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT at_ms, actor, action, summary, reason FROM release_history
                    WHERE tenant_id = ? AND mini_app_id = ? ORDER BY id DESC LIMIT ?
                    """, arguments: [tenantID, miniAppID, limit]
            ).map { row -> (Int64, String, String, String, String?) in (row[0], row[1], row[2], row[3], row[4]) }
        }
        return try rows.map {
            try ReleasePolicyDocument.historyEntry(atMs: $0.0, actor: $0.1, action: $0.2, summary: $0.3, reason: $0.4)
        }
    }

    private static func values(_ row: Row) -> (String, Int64, Int64) { (row[0], row[1], row[2]) }

    private static func policy(_ row: (String, Int64, Int64)) throws -> ReleasePolicy {
        try ReleasePolicyDocument.decode(row.0, revision: row.1, updatedAtMs: row.2)
    }
}
