import GatewayCore
import PostgresNIO
import Synchronization

/// Something that runs a query: the pool (one statement, any connection) or a connection
/// inside a transaction. The helpers always drain the rows, which returns the connection.
protocol SQLRunner: Sendable {
    func run(_ query: PostgresQuery) async throws -> PostgresRowSequence
    /// The first row of a prepared statement (the rest drained): prepared once per connection.
    func firstRow<Statement: PostgresPreparedStatement>(
        of statement: Statement
    ) async throws -> Statement.Row? where Statement.Row: Sendable
    /// Wraps one query and the draining of its rows (the time it holds a connection).
    func measured<Result>(_ body: () async throws -> Result) async throws -> Result
}

extension SQLRunner {
    func measured<Result>(_ body: () async throws -> Result) async throws -> Result {
        try await body()
    }
}

/// The pool, counting the connections its queries hold (see ``PostgresDatabase/connectionsInUse``).
struct CountedPool: SQLRunner {
    let client: PostgresClient
    let usage: PoolUsage
    /// How long a statement may go unanswered (nil: no limit).
    let deadline: Duration?
    /// Refuses statements while the database does not answer (nil: never).
    let breaker: DatabaseBreaker?

    func run(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        let client = self.client
        return try await StatementDeadline.run(deadline, breaker: breaker, late: StatementDeadline.drain) {
            try await client.run(query)
        }
    }

    func firstRow<Statement: PostgresPreparedStatement>(
        of statement: Statement
    ) async throws -> Statement.Row? where Statement.Row: Sendable {
        let client = self.client
        return try await StatementDeadline.run(deadline, breaker: breaker) { try await client.firstRow(of: statement) }
    }

    func measured<Result>(_ body: () async throws -> Result) async throws -> Result {
        usage.enter()
        defer { usage.leave() }
        do {
            return try await body()
        } catch {
            throw ConnectionLoss.classify(error, breaker: breaker)
        }
    }
}

/// How many pool connections this process's queries and transactions hold right now.
final class PoolUsage: Sendable {
    private let count = Atomic<Int>(0)
    var inUse: Int { count.load(ordering: .relaxed) }
    func enter() { count.add(1, ordering: .relaxed) }
    func leave() { count.subtract(1, ordering: .relaxed) }
}

extension PostgresClient: SQLRunner {
    func run(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        try await self.query(query, logger: PostgresDatabase.quiet)
    }

    func firstRow<Statement: PostgresPreparedStatement>(
        of statement: Statement
    ) async throws -> Statement.Row? where Statement.Row: Sendable {
        try await firstOf(execute(statement, logger: PostgresDatabase.quiet))
    }
}

extension PostgresConnection: SQLRunner {
    func run(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        try await self.query(query, logger: PostgresDatabase.quiet)
    }

    func firstRow<Statement: PostgresPreparedStatement>(
        of statement: Statement
    ) async throws -> Statement.Row? where Statement.Row: Sendable {
        try await firstOf(execute(statement, logger: PostgresDatabase.quiet))
    }
}

/// The first element of `rows`, reading them all (which returns the connection).
private func firstOf<Rows: AsyncSequence>(_ rows: Rows) async throws -> Rows.Element? {
    var found: Rows.Element?
    for try await row in rows where found == nil { found = row }
    return found
}

extension SQLRunner {
    /// Every row, decoded as `types`.
    func all<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as types: (repeat each Column).Type
    ) async throws -> [(repeat each Column)] {
        try await measured {
            var result: [(repeat each Column)] = []
            for try await row in try await run(query).decode(types) { result.append(row) }
            return result
        }
    }

    /// The first row, decoded as `types` (nil when there is none).
    func first<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as types: (repeat each Column).Type
    ) async throws -> (repeat each Column)? {
        try await measured {
            var found: (repeat each Column)?
            for try await row in try await run(query).decode(types) where found == nil { found = row }
            return found
        }
    }

    /// The first row of a prepared statement (nil when there is none).
    func first<Statement: PostgresPreparedStatement>(
        _ statement: Statement
    ) async throws -> Statement.Row? where Statement.Row: Sendable {
        try await measured { try await firstRow(of: statement) }
    }

    /// One column of every row.
    func column<Value: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as type: Value.Type
    ) async throws -> [Value] {
        try await measured {
            var result: [Value] = []
            for try await row in try await run(query).decode(Value.self) { result.append(row) }
            return result
        }
    }

    /// Runs a statement; returns how many rows it returned (use `RETURNING 1` to count changes).
    @discardableResult
    func execute(_ query: PostgresQuery) async throws -> Int {
        try await measured {
            var count = 0
            for try await _ in try await run(query) { count += 1 }
            return count
        }
    }
}

/// SQLSTATE of a server error, when `error` is one.
func sqlState(_ error: any Error) -> String? {
    (error as? PSQLError)?.serverInfo?[.sqlState]
}
