import NIOCore

/// Messages published to the channels of one `SUBSCRIBE`, received on a dedicated connection.
///
/// Iterate it once (`for try await (channel, message) in subscription`). The sequence ends
/// normally after ``close()`` or when the iterating task is cancelled, and throws
/// `RedisError.connectionFailed` if the connection is lost (subscriptions are not re-established
/// automatically) or `RedisError.shutdown` when the client shuts down. Messages are buffered
/// without bound until consumed.
public struct RedisSubscription: AsyncSequence, Sendable {
    /// One published message: the channel it was published to and its binary-safe payload.
    public typealias Element = (channel: String, message: [UInt8])

    /// The channels this subscription listens to.
    public let channels: [String]
    private let stream: AsyncThrowingStream<Element, any Error>
    private let connection: any Channel

    /// Iterator over received messages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.AsyncIterator

        /// The next message, or `nil` once the subscription has been closed.
        public mutating func next() async throws -> Element? {
            try await self.base.next()
        }
    }

    /// Creates the iterator; a subscription supports a single iteration.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.stream.makeAsyncIterator())
    }

    /// Ends the subscription: closes its connection; iteration finishes without error.
    public func close() async {
        self.connection.triggerUserOutboundEvent(RedisSubscriptionEndEvent(), promise: nil)
        self.connection.close(promise: nil)
        try? await self.connection.closeFuture.get()
    }

    /// Opens a dedicated connection to the master, runs AUTH/SELECT, subscribes and waits for the
    /// confirmations, so a message published after this returns is guaranteed to be delivered.
    static func open(channels: [String], pool: RedisConnectionPool) async throws(RedisError) -> RedisSubscription {
        if pool.isShutdown { throw .shutdown }
        let master = try await pool.locator.master()
        return try await self.open(
            channels: channels,
            configuration: pool.configuration.node(master),
            tls: pool.locator.tls,
            eventLoop: pool.eventLoopGroup.next(),
            register: pool.register(dedicated:)
        )
    }

    /// Subscribes on the server `configuration` names; `register` is told about the connection
    /// (and refuses it when the owner has shut down).
    static func open(
        channels: [String],
        configuration: RedisConfiguration,
        tls: RedisTLSContext?,
        eventLoop: any EventLoop,
        register: (any Channel) -> Bool
    ) async throws(RedisError) -> RedisSubscription {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self, throwing: (any Error).self)
        let subscribed = eventLoop.makePromise(of: Void.self)
        let handshake = RedisConnection.handshakeCommands(configuration).map { RESPEncoder.encode($0) }
        let subscribe = RESPEncoder.encode([Array("SUBSCRIBE".utf8)] + channels.map { Array($0.utf8) })
        let timeout = TimeAmount(configuration.commandTimeout)

        let connection: any Channel
        do {
            connection = try await RedisBootstrap.connect(configuration: configuration, tls: tls, eventLoop: eventLoop)
            {
                [
                    HiredisReplyDecoder(),
                    RedisPubSubHandler(
                        handshake: handshake,
                        subscribe: subscribe,
                        channelCount: channels.count,
                        timeout: timeout,
                        continuation: continuation,
                        subscribed: subscribed
                    ),
                ]
            }.get()
        } catch {
            let failure = RedisError.wrapping(error)
            subscribed.fail(failure)
            continuation.finish(throwing: failure)
            throw failure
        }
        guard register(connection) else {
            connection.close(promise: nil)
            throw .shutdown
        }
        continuation.onTermination = { _ in
            // Consumer cancelled or dropped the sequence (or it already ended): release the connection.
            connection.triggerUserOutboundEvent(RedisSubscriptionEndEvent(), promise: nil)
            connection.close(promise: nil)
        }
        do {
            try await subscribed.futureResult.get()
        } catch {
            connection.close(promise: nil)
            throw RedisError.wrapping(error)
        }
        return RedisSubscription(channels: channels, stream: stream, connection: connection)
    }
}
