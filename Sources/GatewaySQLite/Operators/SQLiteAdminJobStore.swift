import Foundation
import GRDB
import GatewayCore

/// ``AdminJobStore`` in the SQLite file (`admin_jobs`).
public final class SQLiteAdminJobStore: AdminJobStore {
    private let pool: DatabasePool

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
    }

    public func create(_ job: AdminJob) async throws {
        let result = try AdminJobRows.text(job.result)
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM admin_jobs WHERE tenant_id = ? AND state <> 'running' AND updated_at_ms < ?",
                arguments: [
                    job.tenantID, StoreClock.milliseconds(job.createdAt.addingTimeInterval(-AdminJobRows.retention)),
                ])
            try db.execute(
                sql: """
                    INSERT INTO admin_jobs (id, tenant_id, kind, state, total, done, result, error_code, error_detail,
                        operator_name, created_at_ms, updated_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    job.id, job.tenantID, job.kind, job.state.rawValue, job.total, job.done, result, job.errorCode,
                    job.errorDetail, job.operatorName, StoreClock.milliseconds(job.createdAt),
                    StoreClock.milliseconds(job.updatedAt),
                ])
        }
    }

    public func progress(id: String, done: Int, now: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE admin_jobs SET done = ?, updated_at_ms = ? WHERE id = ? AND state = 'running'",
                arguments: [done, StoreClock.milliseconds(now), id])
        }
    }

    public func finish(_ job: AdminJob) async throws {
        let result = try AdminJobRows.text(job.result)
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE admin_jobs SET state = ?, done = ?, result = ?, error_code = ?, error_detail = ?,
                        updated_at_ms = ? WHERE id = ?
                    """,
                arguments: [
                    job.state.rawValue, job.done, result, job.errorCode, job.errorDetail,
                    StoreClock.milliseconds(job.updatedAt), job.id,
                ])
        }
    }

    public func job(id: String, tenantID: String) async throws -> AdminJob? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT id, tenant_id, kind, state, total, done, result, error_code, error_detail, operator_name,
                        created_at_ms, updated_at_ms
                    FROM admin_jobs WHERE id = ? AND tenant_id = ?
                    """,
                arguments: [id, tenantID]
            ).map { row in
                try AdminJobRows.job(
                    id: row["id"], tenantID: row["tenant_id"], kind: row["kind"], state: row["state"],
                    total: row["total"], done: row["done"], result: row["result"], errorCode: row["error_code"],
                    errorDetail: row["error_detail"], operatorName: row["operator_name"],
                    createdAtMs: row["created_at_ms"], updatedAtMs: row["updated_at_ms"])
            }
        }
    }
}
