import GRDB

extension DatabasePool {
    /// Runs one write statement in a transaction of its own; returns how many rows it changed.
    func changes(sql: String, arguments: StatementArguments) async throws -> Int {
        try await write { db in
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }
}
