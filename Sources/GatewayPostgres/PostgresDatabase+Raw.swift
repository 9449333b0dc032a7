import PostgresNIO

extension PostgresDatabase {
    /// Runs SQL text as given (no binds): for tests and operator tooling, never with input
    /// from a request (bounded like every pool statement). Returns how many rows it returned.
    @discardableResult
    package func execute(unsafeSQL sql: String) async throws -> Int {
        try await pool.execute(PostgresQuery(unsafeSQL: sql))
    }

    /// The first column of the first row as an integer (nil: no row or NULL).
    package func integer(unsafeSQL sql: String) async throws -> Int64? {
        try await pool.first(PostgresQuery(unsafeSQL: sql), as: Int64?.self) ?? nil
    }

    /// The first column of every row as text.
    package func texts(unsafeSQL sql: String) async throws -> [String] {
        try await pool.column(PostgresQuery(unsafeSQL: sql), as: String.self)
    }

    /// Applies the migrations up to and including `name` (tests build older databases).
    package func migrate(upTo name: String?) async throws {
        try await PostgresMigrations.migrate(self, upTo: name)
    }
}
