import GatewayCore
import Logging
import PostgresNIO

/// One PostgreSQL database: the postgres-nio connection pool and the master key that
/// seals secrets, shared by every PostgreSQL store of a process.
///
/// The pool's `run()` starts with the database (migrations and the first tenant load need
/// connections before the gateway's service group runs) and ends with ``shutdown()``,
/// which the gateway calls after its HTTP server drained.
public final class PostgresDatabase: Sendable {
    /// The pool.
    public let client: PostgresClient
    /// Seals and opens secrets at rest (same format and contexts as the SQLite stores).
    public let sealer: SecretSealer
    /// The URL without its password.
    public let location: String
    private let runner: Task<Void, Never>
    /// How long a pool connection may take to open (`connect_timeout`).
    public let connectTimeout: Duration
    /// The most connections the pool opens (`pool_size`).
    public let poolSize: Int
    private let usage = PoolUsage()
    /// The pool for single statements, counting the connections they hold.
    var pool: CountedPool { CountedPool(client: client, usage: usage, deadline: statementDeadline, breaker: breaker) }
    /// Refuses statements at once while the database does not answer (issue 47); it opens only
    /// while ``runBreakerProbe()`` runs (a gateway process; `gatewayctl` never starts it).
    public let breaker: DatabaseBreaker
    /// The breaker's probe connection, outside the pool (a busy pool never looks like an outage).
    private let probeConnection: FreshConnection
    /// How long a statement may go unanswered before it fails as ``DatabaseUnavailable``
    /// (nil: no limit, for `gatewayctl`'s long migrations and copies).
    public let statementDeadline: Duration?
    /// A connection outside the pool for the tenant directory's refreshes (``FreshConnection``).
    let fresh: FreshConnection
    /// Connections this process's statements and transactions hold right now (a gauge).
    public var connectionsInUse: Int { usage.inUse }

    /// Connects lazily (the first query opens connections; a wrong host fails there).
    /// - Parameter searchPath: a schema to work in instead of `public` (tests isolate
    ///   themselves in one schema each).
    /// - Parameter statementDeadline: see ``statementDeadline``.
    /// - Parameter breaker: see ``breaker`` (by default one with the standard policy).
    public init(
        url: String, sealer: SecretSealer, logger: Logger, searchPath: String? = nil, statementDeadline: Duration? = nil,
        breaker: DatabaseBreaker = DatabaseBreaker()
    ) throws {
        self.statementDeadline = statementDeadline
        self.breaker = breaker
        let parsed = try PostgresURL(url)
        // The pool's own chatter (a query queued before `run()` got going, reconnects) stays
        // out of the logs; failures reach callers as thrown errors.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .error)
        var configuration = try parsed.configuration(searchPath: searchPath)
        if let statementDeadline {
            // A replica cut off mid-transaction leaves its session idle in the transaction, its
            // locks held, with no FIN or RST to end it: the server ends such a session after the
            // statement deadline, so other replicas wait on those locks no longer than that (make
            // chaos, partition-pg: an exchange on a healthy replica waited 10 s on a cut one's).
            configuration.options.additionalStartupParameters.append(
                ("idle_in_transaction_session_timeout", String(statementDeadline.wholeMilliseconds)))
        }
        let client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
        self.client = client
        self.sealer = sealer
        self.location = parsed.description + (searchPath.map { " (schema \($0))" } ?? "")
        self.connectTimeout = parsed.connectTimeout
        self.poolSize = parsed.poolSize
        self.fresh = FreshConnection(
            configuration: try parsed.connectionConfiguration(searchPath: searchPath), logger: poolLogger)
        self.probeConnection = FreshConnection(
            configuration: try parsed.connectionConfiguration(searchPath: searchPath), logger: poolLogger)
        self.runner = Task { await client.run() }
    }

    /// Runs `SELECT 1` and throws ``PostgresUnreachable`` when it does not answer within
    /// `timeout` (the pool itself keeps retrying a dead server for about a minute).
    public func checkReachable(within timeout: Duration) async throws {
        let client = self.client
        let location = self.location
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await client.execute("SELECT 1")
                } catch is CancellationError {
                    throw PostgresUnreachable(location: location, timeout: timeout, reason: nil)
                } catch {
                    throw PostgresUnreachable(location: location, timeout: timeout, reason: String(reflecting: error))
                }
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            let answered = try await group.next() ?? false
            group.cancelAll()
            if !answered { throw PostgresUnreachable(location: location, timeout: timeout, reason: nil) }
        }
    }

    /// Probes the database for the ``breaker`` until cancelled: `SELECT 1` on a connection of its
    /// own, each within the breaker's probe timeout.
    public func runBreakerProbe() async {
        let probe = probeConnection
        await breaker.run { timeout in
            try await DatabaseBudget.$deadline.withValue(ContinuousClock.now + timeout) {
                _ = try await probe.withConnection { connection in
                    try await connection.query("SELECT 1", logger: Self.quiet).collect()
                }
            }
        }
    }

    /// Closes every connection; queries after this fail. Call once.
    public func shutdown() async {
        probeConnection.close()
        fresh.close()
        runner.cancel()
        await runner.value
    }

    /// Runs `body` in one transaction (BEGIN … COMMIT, ROLLBACK when it throws). Throws
    /// what `body` threw (not postgres-nio's wrapper), so domain errors stay typed.
    /// - Parameter unbounded: no statement deadline (migrations: DDL on a large table takes long).
    func transaction<Result: Sendable>(
        unbounded: Bool = false, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        usage.enter()
        defer { usage.leave() }
        let client = self.client
        do {
            return try await StatementDeadline.run(unbounded ? nil : statementDeadline, breaker: unbounded ? nil : breaker) {
                try await client.withConnection { connection in
                    try await connection.withTransaction(logger: Self.quiet) { try await body($0) }
                }
            }
        } catch let error as PostgresTransactionError {
            throw ConnectionLoss.classify(
                error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? error,
                breaker: breaker)
        } catch {
            throw ConnectionLoss.classify(error, breaker: breaker)
        }
    }

    /// Queries are not logged (their binds hold sealed values and hashes).
    static let quiet = Logger(label: "gateway.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// The server did not answer: wrong host or port, down, or refusing the credentials.
public struct PostgresUnreachable: Error, CustomStringConvertible {
    /// The URL without its password.
    public let location: String
    public let timeout: Duration
    /// What the driver reported, when it did before the deadline (no password in it).
    public let reason: String?

    public var description: String {
        "PostgreSQL at \(location) did not answer within \(timeout)"
            + (reason.map { ": \(PostgresURL.redact($0))" }
                ?? " (is it running, and are host, port and credentials right?)")
    }
}
