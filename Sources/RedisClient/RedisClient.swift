import Logging
import NIOCore
import NIOPosix

/// An asynchronous Redis client with a pool of pipelined connections.
///
/// Safe to share between tasks. Connections are opened lazily (AUTH and SELECT run on each new
/// one), commands are pipelined, broken connections are replaced transparently with exponential
/// reconnect backoff. With Sentinel (`redis-sentinel://`) the master is discovered, checked with
/// `ROLE`, and followed across failovers. Call ``shutdown()`` when done.
public final class RedisClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: RedisConfiguration
    let pool: RedisConnectionPool
    let logger: Logger

    /// Creates a client. No connection is opened until the first command.
    /// - Parameters:
    ///   - configuration: server address, credentials, pool size and timeouts.
    ///   - eventLoopGroup: the NIO event loops connections run on.
    ///   - logger: receives connection lifecycle messages.
    public init(
        configuration: RedisConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "redis")
    ) {
        self.configuration = configuration
        self.logger = logger
        self.pool = RedisConnectionPool(configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger)
    }

    deinit {
        self.pool.beginShutdown()
    }

    /// Sends any command; arguments (command name first) are binary-safe.
    /// - Returns: the raw reply.
    /// - Throws: `RedisError.server` when the server answers with an error reply; other `RedisError`s
    ///   for timeouts, connection problems or after ``shutdown()``.
    public func send(_ arguments: [[UInt8]]) async throws -> RESPValue {
        let reply = try await self.pool.execute(RESPEncoder.encode(arguments))
        if case .error(let message) = reply {
            if message.hasPrefix("READONLY") { self.pool.masterMayHaveMoved() }
            throw RedisError.server(message)
        }
        return reply
    }

    /// Sends any command given as UTF-8 strings, e.g. `send(["DBSIZE"])`.
    public func send(_ arguments: [String]) async throws -> RESPValue {
        try await self.send(arguments.map { Array($0.utf8) })
    }

    /// Sends `command` with mixed arguments, e.g. `send("SET", "k", .bytes(data), "EX", 10)`.
    public func send(_ command: String, _ arguments: RESPArgument...) async throws -> RESPValue {
        try await self.send(command, arguments: arguments)
    }

    /// Sends `command` with mixed arguments given as an array.
    public func send(_ command: String, arguments: [RESPArgument]) async throws -> RESPValue {
        var parts: [[UInt8]] = [Array(command.utf8)]
        parts.reserveCapacity(arguments.count + 1)
        for argument in arguments { parts.append(argument.bytes) }
        return try await self.send(parts)
    }

    /// Subscribes to `channels` on a dedicated connection.
    ///
    /// Returns once the server has confirmed every channel. End it with `RedisSubscription.close()`
    /// or by cancelling the iterating task.
    public func subscribe(_ channels: [String]) async throws -> RedisSubscription {
        try await RedisSubscription.open(channels: channels, pool: self.pool)
    }

    /// Pooled connections open right now (at most `configuration.poolSize`; subscriptions,
    /// which hold one dedicated connection each, are not counted).
    public var openConnections: Int { self.pool.openConnections }

    /// Closes all connections (in-flight commands fail with `.shutdown`, subscriptions end with
    /// `.shutdown`). Later calls throw `RedisError.shutdown`.
    public func shutdown() async {
        await self.pool.shutdown()
    }
}
