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
            INSERT INTO audit_records (chain, sequence, time_ms, subject, verb, resource_type, body, hash)
            VALUES (\(row.chain), \(row.sequence), \(row.timeMs), \(row.subject), \(row.verb), \(row.resourceType),
                \(row.body), \(row.hash))
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
              AND (\(query.subject)::text IS NULL OR subject = \(query.subject))
              AND (\(query.resourceType?.rawValue)::text IS NULL OR resource_type = \(query.resourceType?.rawValue))
              AND (\(query.verb?.rawValue)::text IS NULL OR verb = \(query.verb?.rawValue))
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

    private typealias RowColumns = (Int64, String, Int64, Int64, String, String, String, String, String)

    private static let columns =
        "SELECT id, chain, sequence, time_ms, subject, verb, resource_type, body, hash FROM audit_records"

    private static func row(_ r: RowColumns) -> AuditRow {
        AuditRow(
            id: r.0, chain: r.1, sequence: r.2, timeMs: r.3, subject: r.4, verb: r.5, resourceType: r.6, body: r.7,
            hash: r.8)
    }
}
