import GatewayCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// One connection outside the pool, given up after any failure or unanswered statement and
/// opened afresh on the next use. Found by `make chaos` (partition-pg): after a partition
/// healed, the tenant directory's refreshes still waited on pool connections whose packets
/// sat in TCP's retransmission backoff, so a healed replica served an old tenant config for
/// 1.3-2.3 s more; a connection opened after the healing answers at once. Each use is bounded
/// by the caller's ``DatabaseBudget`` (the directory gives each refresh 1 s), so during a
/// partition every tick tries a new connection and the first one after the healing succeeds.
///
/// Its TCP connect gives up after ``connectTimeout``, not the pool's: a SYN lost in a partition
/// is only retransmitted after 1 s, so with the budget alone a change reached a replica up to
/// 1.7 s after the healing (chaos, partition-pg); with attempts every quarter second it is
/// well under one.
final class FreshConnection: Sendable {
    /// The longest a TCP connect may take: a handshake on a LAN or across a region is far
    /// shorter; one that takes longer lost a packet, and a new attempt is quicker than TCP's
    /// retransmission.
    static let connectTimeout = TimeAmount.milliseconds(250)

    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let state = Mutex<(connection: PostgresConnection?, next: Int, closed: Bool)>((nil, 0, false))

    init(configuration: PostgresConnection.Configuration, logger: Logger) {
        var configuration = configuration
        configuration.options.connectTimeout = min(configuration.options.connectTimeout, Self.connectTimeout)
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs `body` on the connection (opening one if needed) within the caller's budget; after
    /// a failure or a timeout the connection is closed and the next call opens another.
    func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await StatementDeadline.run(nil) {
                try await body(try await self.current())
            }
        } catch {
            discard()
            throw ConnectionLoss.classify(error)
        }
    }

    deinit {
        // postgres-nio asserts that a connection is closed before it goes away.
        state.withLock { $0.connection }.map(Self.close)
    }

    /// Closes the connection for good (the database shuts down).
    func close() {
        let connection = state.withLock { state in
            state.closed = true
            defer { state.connection = nil }
            return state.connection
        }
        connection.map(Self.close)
    }

    private func current() async throws -> PostgresConnection {
        let (existing, id, closed) = state.withLock { state -> (PostgresConnection?, Int, Bool) in
            state.next += 1
            return (state.connection, state.next, state.closed)
        }
        if closed { throw DatabaseUnavailable(reason: "the database is shut down") }
        if let existing, !existing.isClosed { return existing }
        let opened = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger
        ).get()
        // Another call may have opened one meanwhile (then that one serves), or the database shut down.
        let (kept, stale) = state.withLock { state -> (PostgresConnection?, PostgresConnection?) in
            if state.closed { return (nil, state.connection) }
            if let other = state.connection, !other.isClosed { return (other, nil) }
            defer { state.connection = opened }
            return (opened, state.connection)
        }
        stale.map(Self.close)
        guard let kept else {
            Self.close(opened)
            throw DatabaseUnavailable(reason: "the database is shut down")
        }
        if kept !== opened { Self.close(opened) }
        return kept
    }

    /// The connection a failure or timeout left: closed, so nothing waits on it again.
    private func discard() {
        let connection = state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        connection.map(Self.close)
    }

    private static func close(_ connection: PostgresConnection) {
        Task { try? await connection.close() }
    }
}
