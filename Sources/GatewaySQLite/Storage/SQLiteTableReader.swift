import GatewayCore
import GRDB

/// One stored value as SQLite holds it, for moving rows between engines unchanged
/// (sealed secrets stay sealed: nothing here opens them).
public enum StoredValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLiteTenantStore {
    /// The tables of the database (not SQLite's or GRDB's own), by name.
    public func tableNames() async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name
                    """)
        }
    }

    /// The column names of `table`, in table order.
    public func columnNames(of table: String) async throws -> [String] {
        try await pool.read { db in try db.columns(in: table).map(\.name) }
    }

    /// Up to `limit` rows of `table` with a rowid above `after`, in rowid order, as the
    /// values of `columns`; and the last rowid read (nil when there were none).
    public func rows(
        of table: String, columns: [String], after: Int64, limit: Int
    ) async throws -> (rows: [[StoredValue]], lastRowID: Int64?) {
        let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        return try await pool.read { db in
            var rows: [[StoredValue]] = []
            var last: Int64?
            let cursor = try Row.fetchCursor(
                db,
                sql:
                    "SELECT rowid, \(list) FROM \(table.quotedDatabaseIdentifier) WHERE rowid > ? ORDER BY rowid LIMIT ?",
                arguments: [after, limit])
            while let row = try cursor.next() {
                last = row[0]
                rows.append(row.databaseValues.dropFirst().map { value in
                    switch value.storage {
                    case .null: .null
                    case .int64(let number): .integer(number)
                    case .double(let number): .real(number)
                    case .string(let text): .text(text)
                    case .blob(let data): .blob([UInt8](data))
                    }
                })
            }
            return (rows, last)
        }
    }
}
