import Foundation
import GatewayCore
import GRDB

/// ``AuditTrail`` in the SQLite file (`audit_records`). SQLite has one writer at a time, so
/// reading a chain's last record and appending after it in one write transaction cannot race.
public final class SQLiteAuditTrail: AuditTrail {
    private let pool: DatabasePool

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
    }

    @discardableResult
    public func append(_ draft: AuditDraft) async throws -> AuditRecord {
        try await pool.write { db in try Self.append(draft, in: db) }
    }

    /// Appends `draft` inside the caller's write transaction (the change it records commits
    /// with it, or neither does).
    static func append(_ draft: AuditDraft, in db: Database) throws -> AuditRecord {
        let last = try Row.fetchOne(
            db, sql: "SELECT sequence, hash FROM audit_records WHERE chain = ? ORDER BY sequence DESC LIMIT 1",
            arguments: [draft.chain])
        var row = try AuditRow.sealing(
            draft, sequence: (last?["sequence"] as Int64? ?? 0) + 1,
            previousHash: last?["hash"] as String? ?? AuditChain.genesis)
        try db.execute(
            sql: """
                INSERT INTO audit_records (chain, sequence, time_ms, subject, verb, resource_type, resource_id, body, hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                row.chain, row.sequence, row.timeMs, row.subject, row.verb, row.resourceType, row.resourceID, row.body,
                row.hash,
            ])
        row.id = db.lastInsertedRowID
        guard let record = AuditChain.record(row) else { throw DatabaseError(message: "audit record did not seal") }
        return record
    }

    public func records(matching query: AuditQuery) async throws -> AuditPage {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        func add(_ condition: String, _ value: (any DatabaseValueConvertible)?) {
            guard let value else { return }
            conditions.append(condition)
            arguments += [value]
        }
        add("chain = ?", query.chain)
        add("subject = ?", query.subjectColumn)
        add("resource_type = ?", query.resourceType?.rawValue)
        add("resource_id = ?", query.resourceIDColumn)
        add("id > ?", query.afterID)
        add("verb = ?", query.verb?.rawValue)
        add("time_ms >= ?", query.since.map(StoreClock.milliseconds))
        add("time_ms < ?", query.until.map(StoreClock.milliseconds))
        add(query.oldestFirst ? "id > ?" : "id < ?", query.cursor)
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments += [query.limit + 1]
        let order = query.oldestFirst ? "ASC" : "DESC"
        let (sql, bound) = ("\(Self.columns) \(filter) ORDER BY id \(order) LIMIT ?", arguments)
        let rows = try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound)
                .map(Self.row)
        }
        return AuditPages.page(rows, limit: query.limit)
    }

    public func chainNames() async throws -> [String] {
        try await pool.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT chain FROM audit_records ORDER BY chain") }
    }

    public func rows(chain: String, afterSequence: Int64, limit: Int) async throws -> [AuditRow] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "\(Self.columns) WHERE chain = ? AND sequence > ? ORDER BY sequence LIMIT ?",
                arguments: [chain, afterSequence, limit]
            ).map(Self.row)
        }
    }

    public func viewsCutover() async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(cutover_id) FROM audit_views") ?? 0 }
    }

    public func checkpoint(chain: String) async throws -> AuditCheckpoint? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT sequence, hash, time_ms, pruned_at_ms, signature FROM audit_checkpoints WHERE chain = ?",
                arguments: [chain]
            ).map {
                AuditCheckpoint(
                    chain: chain, sequence: $0["sequence"], hash: $0["hash"], timeMs: $0["time_ms"],
                    prunedAtMs: $0["pruned_at_ms"], signature: $0["signature"])
            }
        }
    }

    public func lastPrunable(chain: String, beforeMs: Int64) async throws -> AuditRow? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    \(Self.columns) WHERE chain = ? AND time_ms < ?
                      AND sequence < (SELECT MAX(sequence) FROM audit_records WHERE chain = ?)
                    ORDER BY sequence DESC LIMIT 1
                    """, arguments: [chain, beforeMs, chain]
            ).map(Self.row)
        }
    }

    public func saveCheckpoint(_ checkpoint: AuditCheckpoint) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO audit_checkpoints (chain, sequence, hash, time_ms, pruned_at_ms, signature)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (chain) DO UPDATE SET sequence = excluded.sequence, hash = excluded.hash,
                        time_ms = excluded.time_ms, pruned_at_ms = excluded.pruned_at_ms, signature = excluded.signature
                    WHERE excluded.sequence > audit_checkpoints.sequence
                    """,
                arguments: [
                    checkpoint.chain, checkpoint.sequence, checkpoint.hash, checkpoint.timeMs, checkpoint.prunedAtMs,
                    checkpoint.signature,
                ])
        }
    }

    public func pruneCovered(chain: String, limit: Int) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    DELETE FROM audit_records WHERE id IN (
                        SELECT id FROM audit_records WHERE chain = ?
                          AND sequence <= (SELECT sequence FROM audit_checkpoints WHERE chain = ?)
                        ORDER BY sequence LIMIT ?)
                    """, arguments: [chain, chain, limit])
            return db.changesCount
        }
    }

    private static let columns =
        "SELECT id, chain, sequence, time_ms, subject, verb, resource_type, resource_id, body, hash FROM audit_records"

    private static func row(_ row: Row) -> AuditRow {
        AuditRow(
            id: row["id"], chain: row["chain"], sequence: row["sequence"], timeMs: row["time_ms"],
            subject: row["subject"], verb: row["verb"], resourceType: row["resource_type"],
            resourceID: row["resource_id"], body: row["body"], hash: row["hash"])
    }
}
