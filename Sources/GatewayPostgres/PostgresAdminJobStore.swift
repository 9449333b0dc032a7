import Foundation
import GatewayCore
import PostgresNIO

/// ``AdminJobStore`` in PostgreSQL (`admin_jobs`).
public final class PostgresAdminJobStore: AdminJobStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func create(_ job: AdminJob) async throws {
        let result = try AdminJobRows.text(job.result)
        let (created, updated) = (StoreClock.milliseconds(job.createdAt), StoreClock.milliseconds(job.updatedAt))
        let cutoff = StoreClock.milliseconds(job.createdAt.addingTimeInterval(-AdminJobRows.retention))
        try await database.transaction { connection in
            try await connection.execute(
                """
                DELETE FROM admin_jobs WHERE tenant_id = \(job.tenantID) AND state <> 'running'
                    AND updated_at_ms < \(cutoff)
                """)
            try await connection.execute(
                """
                INSERT INTO admin_jobs (id, tenant_id, kind, state, total, done, result, error_code, error_detail,
                    operator_name, created_at_ms, updated_at_ms)
                VALUES (\(job.id), \(job.tenantID), \(job.kind), \(job.state.rawValue), \(Int64(job.total)),
                    \(Int64(job.done)), \(result), \(job.errorCode), \(job.errorDetail), \(job.operatorName),
                    \(created), \(updated))
                """)
        }
    }

    public func progress(id: String, done: Int, now: Date) async throws {
        try await database.pool.execute(
            """
            UPDATE admin_jobs SET done = \(Int64(done)), updated_at_ms = \(StoreClock.milliseconds(now))
            WHERE id = \(id) AND state = 'running'
            """)
    }

    public func finish(_ job: AdminJob) async throws {
        let result = try AdminJobRows.text(job.result)
        try await database.pool.execute(
            """
            UPDATE admin_jobs SET state = \(job.state.rawValue), done = \(Int64(job.done)), result = \(result),
                error_code = \(job.errorCode), error_detail = \(job.errorDetail),
                updated_at_ms = \(StoreClock.milliseconds(job.updatedAt))
            WHERE id = \(job.id)
            """)
    }

    public func job(id: String, tenantID: String) async throws -> AdminJob? {
        guard
            let r = try await database.pool.first(
                """
                SELECT id, tenant_id, kind, state, total, done, result, error_code, error_detail, operator_name,
                    created_at_ms, updated_at_ms
                FROM admin_jobs WHERE id = \(id) AND tenant_id = \(tenantID)
                """,
                as: (String, String, String, String, Int64, Int64, String?, String?, String?, String, Int64, Int64).self
            )
        else { return nil }
        return try AdminJobRows.job(
            id: r.0, tenantID: r.1, kind: r.2, state: r.3, total: r.4, done: r.5, result: r.6, errorCode: r.7,
            errorDetail: r.8, operatorName: r.9, createdAtMs: r.10, updatedAtMs: r.11)
    }
}
