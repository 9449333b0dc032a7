import Foundation
import GatewayCore
import PostgresNIO

/// ``AuditTrail`` in PostgreSQL (`audit_records`). Appends to one chain take a transaction-
/// scoped advisory lock on it first: replicas appending together queue, never fork the chain.
public final class PostgresAuditTrail: AuditTrail {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    @discardableResult
    public func append(_ draft: AuditDraft) async throws -> AuditRecord {
        try await database.transaction { connection in try await Self.append(draft, on: connection) }
    }

    /// The advisory lock class of chains (the second key is the chain's hash).
    static let lockClass: Int32 = 48

    /// Appends `draft` inside the caller's transaction (the change it records commits with
    /// it, or neither does).
    static func append(_ draft: AuditDraft, on connection: PostgresConnection) async throws -> AuditRecord {
        let chain = draft.chain
        try await connection.execute("SELECT pg_advisory_xact_lock(\(lockClass), hashtext(\(chain)))")
        let last = try await connection.first(
            "SELECT sequence, hash FROM audit_records WHERE chain = \(chain) ORDER BY sequence DESC LIMIT 1",
            as: (Int64, String).self)
        var row = try AuditRow.sealing(draft, sequence: (last?.0 ?? 0) + 1, previousHash: last?.1 ?? AuditChain.genesis)
        let id = try await connection.first(
            """
            INSERT INTO audit_records (chain, sequence, time_ms, subject, verb, resource_type, resource_id, body, hash)
            VALUES (\(row.chain), \(row.sequence), \(row.timeMs), \(row.subject), \(row.verb), \(row.resourceType),
                \(row.resourceID), \(row.body), \(row.hash))
            RETURNING id
            """, as: Int64.self)
        row.id = id ?? 0
        guard let record = AuditChain.record(row) else { throw OperatorError.invalid("audit record did not seal") }
        return record
    }

    public func records(matching query: AuditQuery) async throws -> AuditPage {
        let (since, until) = (query.since.map(StoreClock.milliseconds), query.until.map(StoreClock.milliseconds))
        let rows = try await database.pool.all(
            """
            \(unescaped: Self.columns)
            WHERE (\(query.chain)::text IS NULL OR chain = \(query.chain))
              AND (\(query.subjectColumn)::text IS NULL OR subject = \(query.subjectColumn))
              AND (\(query.resourceType?.rawValue)::text IS NULL OR resource_type = \(query.resourceType?.rawValue))
              AND (\(query.verb?.rawValue)::text IS NULL OR verb = \(query.verb?.rawValue))
              AND (\(query.resourceIDColumn)::text IS NULL OR resource_id = \(query.resourceIDColumn))
              AND (\(query.afterID)::bigint IS NULL OR id > \(query.afterID))
              AND (\(since)::bigint IS NULL OR time_ms >= \(since))
              AND (\(until)::bigint IS NULL OR time_ms < \(until))
              AND (\(query.cursor)::bigint IS NULL OR \(unescaped: query.oldestFirst ? "id >" : "id <") \(query.cursor))
            ORDER BY id \(unescaped: query.oldestFirst ? "ASC" : "DESC") LIMIT \(query.limit + 1)
            """, as: Self.RowColumns.self)
        return AuditPages.page(rows.map(Self.row), limit: query.limit)
    }

    public func chainNames() async throws -> [String] {
        try await database.pool.column("SELECT DISTINCT chain FROM audit_records ORDER BY chain", as: String.self)
    }

    public func rows(chain: String, afterSequence: Int64, limit: Int) async throws -> [AuditRow] {
        try await database.pool.all(
            """
            \(unescaped: Self.columns) WHERE chain = \(chain) AND sequence > \(afterSequence) ORDER BY sequence LIMIT \(limit)
            """, as: Self.RowColumns.self
        ).map(Self.row)
    }

    public func viewsCutover() async throws -> Int64 {
        try await database.pool.first("SELECT COALESCE(MAX(cutover_id), 0)::bigint FROM audit_views", as: Int64.self) ?? 0
    }

    public func checkpoint(chain: String) async throws -> AuditCheckpoint? {
        try await database.pool.first(
            "SELECT sequence, hash, time_ms, pruned_at_ms, signature FROM audit_checkpoints WHERE chain = \(chain)",
            as: (Int64, String, Int64, Int64, String).self
        ).map {
            AuditCheckpoint(chain: chain, sequence: $0.0, hash: $0.1, timeMs: $0.2, prunedAtMs: $0.3, signature: $0.4)
        }
    }

    public func lastPrunable(chain: String, beforeMs: Int64) async throws -> AuditRow? {
        try await database.pool.first(
            """
            \(unescaped: Self.columns) WHERE chain = \(chain) AND time_ms < \(beforeMs)
              AND sequence < (SELECT MAX(sequence) FROM audit_records WHERE chain = \(chain))
            ORDER BY sequence DESC LIMIT 1
            """, as: Self.RowColumns.self
        ).map(Self.row)
    }

    public func saveCheckpoint(_ checkpoint: AuditCheckpoint) async throws {
        _ = try await database.pool.execute(
            """
            INSERT INTO audit_checkpoints (chain, sequence, hash, time_ms, pruned_at_ms, signature)
            VALUES (\(checkpoint.chain), \(checkpoint.sequence), \(checkpoint.hash), \(checkpoint.timeMs),
                \(checkpoint.prunedAtMs), \(checkpoint.signature))
            ON CONFLICT (chain) DO UPDATE SET sequence = excluded.sequence, hash = excluded.hash,
                time_ms = excluded.time_ms, pruned_at_ms = excluded.pruned_at_ms, signature = excluded.signature
            WHERE excluded.sequence > audit_checkpoints.sequence
            """)
    }

    public func pruneCovered(chain: String, limit: Int) async throws -> Int {
        try await database.pool.execute(
            """
            DELETE FROM audit_records WHERE id IN (
                SELECT id FROM audit_records WHERE chain = \(chain)
                  AND sequence <= (SELECT sequence FROM audit_checkpoints WHERE chain = \(chain))
                ORDER BY sequence LIMIT \(limit))
            RETURNING 1
            """)
    }

    private typealias RowColumns = (Int64, String, Int64, Int64, String, String, String, String?, String, String)

    private static let columns =
        "SELECT id, chain, sequence, time_ms, subject, verb, resource_type, resource_id, body, hash FROM audit_records"

    private static func row(_ r: RowColumns) -> AuditRow {
        AuditRow(
            id: r.0, chain: r.1, sequence: r.2, timeMs: r.3, subject: r.4, verb: r.5, resourceType: r.6, resourceID: r.7,
            body: r.8, hash: r.9)
    }
}
