import Logging
import NIOCore

/// One TCP connection to Redis with a pipelining command handler.
///
/// Thread-safe: all state lives in the channel's handlers, which run on its event loop.
final class RedisConnection: Sendable {
    let channel: any Channel
    private let logger: Logger

    private init(channel: any Channel, logger: Logger) {
        self.channel = channel
        self.logger = logger
    }

    /// Completes when the underlying channel has closed.
    var closeFuture: EventLoopFuture<Void> { self.channel.closeFuture }

    /// `false` once the channel has been closed (by either side).
    var isActive: Bool { self.channel.isActive }

    /// Connects, then authenticates and selects the database before the connection is handed out.
    ///
    /// Failures are `RedisError`s: `.connectionFailed` for TCP problems, `.server` when `AUTH` or
    /// `SELECT` is rejected (e.g. `WRONGPASS ...`).
    static func connect(
        configuration: RedisConfiguration,
        tls: RedisTLSContext?,
        eventLoop: any EventLoop,
        logger: Logger
    ) -> EventLoopFuture<RedisConnection> {
        let commandTimeout = TimeAmount(configuration.commandTimeout)
        let target = RedisEndpoint(host: configuration.host, port: configuration.port)
        return RedisBootstrap.connect(configuration: configuration, tls: tls, eventLoop: eventLoop) {
            [HiredisReplyDecoder(), RedisCommandHandler(commandTimeout: commandTimeout)]
        }
        .flatMap { channel in
            let connection = RedisConnection(channel: channel, logger: logger)
            return connection.handshake(configuration).map { connection }.flatMapErrorThrowing { error in
                channel.close(promise: nil)
                throw error
            }
        }
        .always { result in
            switch result {
            case .success:
                logger.debug("redis connection established", metadata: ["redis.address": "\(target)"])
            case .failure(let error):
                logger.debug("redis connection failed", metadata: ["redis.address": "\(target)", "error": "\(error)"])
            }
        }
    }

    /// Sends one command and waits for its reply; an error reply throws `RedisError.server`.
    func command(_ arguments: [String]) async throws(RedisError) -> RESPValue {
        let reply: RESPValue
        do {
            reply = try await self.send(RESPEncoder.encode(arguments.map { Array($0.utf8) })).get()
        } catch {
            throw RedisError.wrapping(error)
        }
        if case .error(let message) = reply { throw .server(message) }
        return reply
    }

    /// Sends AUTH / SELECT pipelined; an error reply to any of them fails the connection.
    private func handshake(_ configuration: RedisConfiguration) -> EventLoopFuture<Void> {
        var futures: [EventLoopFuture<RESPValue>] = []
        for command in Self.handshakeCommands(configuration) {
            futures.append(self.send(RESPEncoder.encode(command)))
        }
        guard !futures.isEmpty else { return self.channel.eventLoop.makeSucceededVoidFuture() }
        return EventLoopFuture.whenAllComplete(futures, on: self.channel.eventLoop).flatMapThrowing { results in
            for result in results {
                switch result {
                case .success(.error(let message)):
                    throw RedisError.server(message)
                case .success:
                    continue
                case .failure(let error):
                    throw RedisError.connectionFailed("connection setup failed: \(RedisError.wrapping(error))")
                }
            }
        }
    }

    /// The commands every new connection runs before serving callers (also used by subscriptions).
    static func handshakeCommands(_ configuration: RedisConfiguration) -> [[[UInt8]]] {
        var commands: [[[UInt8]]] = []
        if let password = configuration.password {
            if let username = configuration.username {
                commands.append([Array("AUTH".utf8), Array(username.utf8), Array(password.utf8)])
            } else {
                commands.append([Array("AUTH".utf8), Array(password.utf8)])
            }
        }
        if configuration.database != 0 {
            commands.append([Array("SELECT".utf8), Array(String(configuration.database).utf8)])
        }
        return commands
    }

    /// Queues one encoded command; the future completes with its reply (error replies included).
    func send(_ payload: ByteBuffer) -> EventLoopFuture<RESPValue> {
        let promise = self.channel.eventLoop.makePromise(of: RESPValue.self)
        // If the pipeline is already torn down the handler never sees the request: fail it here.
        // (Completing a promise twice is a no-op in NIO, so racing with the handler is harmless.)
        self.channel.writeAndFlush(RedisCommandRequest(payload: payload, promise: promise)).whenFailure { error in
            promise.fail(RedisError.connectionFailed("write failed: \(error)"))
        }
        return promise.futureResult
    }

    /// Fails in-flight commands with `error` and closes the channel.
    func close(error: RedisError) {
        self.channel.triggerUserOutboundEvent(RedisCloseEvent(error: error), promise: nil)
        // If the pipeline is already gone the event is dropped; make sure the channel closes anyway.
        self.channel.close(promise: nil)
    }
}
