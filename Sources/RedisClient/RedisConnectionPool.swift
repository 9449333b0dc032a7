import Logging
import NIOCore
import Synchronization

/// A fixed number of lazily opened, pipelined connections used round-robin.
///
/// - A slot is connected on demand; commands arriving while it connects wait for that attempt.
/// - A dead connection (server restart, timeout) empties its slot; the next command reconnects.
/// - After a failed connect, further attempts wait an exponentially growing backoff
///   (`reconnectInitialBackoff` ... `reconnectMaxBackoff`). During that window commands use
///   any live connection, or fail immediately with `.connectionFailed` — they are never queued.
final class RedisConnectionPool: Sendable {
    private enum Slot: Sendable {
        case empty
        case connecting(EventLoopFuture<RedisConnection>)
        case ready(RedisConnection)
    }

    private struct State: Sendable {
        var slots: [Slot]
        var nextSlot = 0
        var isShutdown = false
        var backoff: Duration?
        var nextAttempt = NIODeadline.uptimeNanoseconds(0)
        var lastConnectError: RedisError?
        /// Dedicated connections (subscriptions), closed on shutdown.
        var dedicated: [ObjectIdentifier: any Channel] = [:]
        /// Follows Sentinel failovers; started with the first connect.
        var watcher: Task<Void, Never>?
    }

    private enum Lease {
        case use(RedisConnection)
        case wait(EventLoopFuture<RedisConnection>)
        case connect(slot: Int, promise: EventLoopPromise<RedisConnection>)
        case fail(RedisError)
    }

    let configuration: RedisConfiguration
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    /// Where connections go (the configured host, or the master Sentinel names).
    let locator: RedisMasterLocator
    private let state: Mutex<State>

    init(configuration: RedisConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.locator = RedisMasterLocator(configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger)
        self.state = Mutex(State(slots: Array(repeating: .empty, count: max(1, configuration.poolSize))))
    }

    var isShutdown: Bool { self.state.withLock { $0.isShutdown } }

    /// Pooled connections that are open right now (subscriptions not counted).
    var openConnections: Int {
        self.state.withLock { state in
            state.slots.reduce(0) { count, slot in
                if case .ready(let connection) = slot, connection.isActive { return count + 1 }
                return count
            }
        }
    }

    /// Sends one encoded command on a pooled connection and returns its raw reply.
    func execute(_ payload: ByteBuffer) async throws(RedisError) -> RESPValue {
        let connection = try await self.leaseConnection()
        do {
            return try await connection.send(payload).get()
        } catch {
            throw RedisError.wrapping(error)
        }
    }

    /// Picks the next slot round-robin, connecting it if needed (see the type's documentation).
    func leaseConnection() async throws(RedisError) -> RedisConnection {
        let now = NIODeadline.now()
        let lease: Lease = self.state.withLock { state in
            if state.isShutdown { return .fail(.shutdown) }
            let count = state.slots.count
            let start = state.nextSlot
            state.nextSlot = (start + 1) % count
            switch state.slots[start] {
            case .ready(let connection) where connection.isActive:
                return .use(connection)
            case .connecting(let future):
                return .wait(future)
            case .ready, .empty:
                if now >= state.nextAttempt {
                    let promise = self.eventLoopGroup.next().makePromise(of: RedisConnection.self)
                    state.slots[start] = .connecting(promise.futureResult)
                    return .connect(slot: start, promise: promise)
                }
            }
            // Backing off: fall back to whatever else is usable, but never queue.
            for offset in 1..<max(count, 1) {
                if case .ready(let connection) = state.slots[(start + offset) % count], connection.isActive {
                    return .use(connection)
                }
            }
            for offset in 1..<max(count, 1) {
                if case .connecting(let future) = state.slots[(start + offset) % count] {
                    return .wait(future)
                }
            }
            let waitMs = (state.nextAttempt - now).nanoseconds / 1_000_000
            let last = state.lastConnectError.map { "; last error: \($0)" } ?? ""
            return .fail(.connectionFailed(
                "\(self.configuration.addressDescription) unavailable, next reconnect attempt in \(waitMs) ms\(last)"
            ))
        }

        let future: EventLoopFuture<RedisConnection>
        switch lease {
        case .use(let connection):
            return connection
        case .fail(let error):
            throw error
        case .wait(let pending):
            future = pending
        case .connect(let slot, let promise):
            self.startConnect(slot: slot, promise: promise)
            future = promise.futureResult
        }
        do {
            return try await future.get()
        } catch {
            throw RedisError.wrapping(error)
        }
    }

    private func startConnect(slot: Int, promise: EventLoopPromise<RedisConnection>) {
        self.startFailoverWatcherIfNeeded()
        let eventLoop = promise.futureResult.eventLoop
        Task {
            let result: Result<RedisConnection, any Error>
            do {
                result = .success(try await self.locator.connectMaster(on: eventLoop))
            } catch {
                result = .failure(error)
            }
            self.connectCompleted(slot: slot, promise: promise, result: result)
        }
    }

    // MARK: Failover

    private func startFailoverWatcherIfNeeded() {
        guard self.configuration.sentinel != nil else { return }
        self.state.withLock { state in
            guard state.watcher == nil, !state.isShutdown else { return }
            state.watcher = Task { [locator = self.locator, logger = self.logger] in
                await RedisFailoverWatcher.run(pool: self, locator: locator, logger: logger) { [weak self] master in
                    self?.dropConnections(because: "the master moved to \(master)")
                }
            }
        }
    }

    /// A `READONLY` reply: the server was demoted. With Sentinel, ask again where the master is.
    func masterMayHaveMoved() {
        guard self.configuration.sentinel != nil else { return }
        self.locator.forget()
        self.dropConnections(because: "the server answered READONLY (no longer the master)")
    }

    /// Closes every pooled and dedicated connection (their in-flight commands fail, subscriptions
    /// end with `.connectionFailed`) and lifts the reconnect backoff, so the next command connects
    /// to the new master at once.
    func dropConnections(because reason: String) {
        let (slots, dedicated) = self.state.withLock { state -> ([Slot], [any Channel]) in
            guard !state.isShutdown else { return ([], []) }
            let slots = state.slots
            state.slots = state.slots.map { slot in
                if case .connecting = slot { return slot }
                return .empty
            }
            state.backoff = nil
            state.nextAttempt = .uptimeNanoseconds(0)
            return (slots, Array(state.dedicated.values))
        }
        let error = RedisError.connectionFailed(reason)
        for case .ready(let connection) in slots {
            connection.close(error: error)
        }
        for channel in dedicated {
            channel.triggerUserOutboundEvent(RedisCloseEvent(error: error), promise: nil)
            channel.close(promise: nil)
        }
    }

    private func connectCompleted(
        slot: Int,
        promise: EventLoopPromise<RedisConnection>,
        result: Result<RedisConnection, any Error>
    ) {
        switch result {
        case .success(let connection):
            let isShutdown = self.state.withLock { state in
                if state.isShutdown { return true }
                state.slots[slot] = .ready(connection)
                state.backoff = nil
                state.lastConnectError = nil
                state.nextAttempt = .uptimeNanoseconds(0)
                return false
            }
            if isShutdown {
                connection.close(error: .shutdown)
                promise.fail(RedisError.shutdown)
                return
            }
            connection.closeFuture.whenComplete { _ in
                self.connectionClosed(slot: slot, connection: connection)
            }
            promise.succeed(connection)

        case .failure(let error):
            let redisError = RedisError.wrapping(error)
            let delay: Duration = self.state.withLock { state in
                if case .connecting(let future) = state.slots[slot], future == promise.futureResult {
                    state.slots[slot] = .empty
                }
                let delay = state.backoff.map { min($0 * 2, self.configuration.reconnectMaxBackoff) }
                    ?? self.configuration.reconnectInitialBackoff
                state.backoff = delay
                state.nextAttempt = .now() + TimeAmount(delay)
                state.lastConnectError = redisError
                return delay
            }
            self.logger.warning(
                "redis connect failed; backing off",
                metadata: ["error": "\(redisError)", "backoff": "\(delay)"]
            )
            promise.fail(redisError)
        }
    }

    private func connectionClosed(slot: Int, connection: RedisConnection) {
        self.state.withLock { state in
            if case .ready(let current) = state.slots[slot], current === connection {
                state.slots[slot] = .empty
            }
        }
        self.logger.debug("redis connection closed", metadata: ["slot": "\(slot)"])
    }

    // MARK: Dedicated connections

    /// Tracks a dedicated channel so shutdown closes it. Returns `false` if already shut down.
    func register(dedicated channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let registered = self.state.withLock { state in
            if state.isShutdown { return false }
            state.dedicated[id] = channel
            return true
        }
        if registered {
            channel.closeFuture.whenComplete { _ in
                _ = self.state.withLock { $0.dedicated.removeValue(forKey: id) }
            }
        }
        return registered
    }

    // MARK: Shutdown

    /// Marks the pool shut down and starts closing everything; returns futures to wait for.
    @discardableResult
    func beginShutdown() -> [EventLoopFuture<Void>] {
        let (slots, dedicated) = self.state.withLock { state -> ([Slot], [any Channel]) in
            guard !state.isShutdown else { return ([], []) }
            state.isShutdown = true
            state.watcher?.cancel()
            let slots = state.slots
            let dedicated = Array(state.dedicated.values)
            state.slots = state.slots.map { _ in .empty }
            state.dedicated = [:]
            return (slots, dedicated)
        }
        var closing: [EventLoopFuture<Void>] = []
        for slot in slots {
            switch slot {
            case .empty:
                break
            case .ready(let connection):
                connection.close(error: .shutdown)
                closing.append(connection.closeFuture)
            case .connecting(let future):
                // `connectCompleted` sees the shutdown flag and closes the connection.
                closing.append(future.flatMap { $0.closeFuture }.recover { _ in })
            }
        }
        for channel in dedicated {
            channel.triggerUserOutboundEvent(RedisCloseEvent(error: .shutdown), promise: nil)
            channel.close(promise: nil)
            closing.append(channel.closeFuture)
        }
        return closing
    }

    /// Closes all connections and waits until they are closed.
    func shutdown() async {
        for future in self.beginShutdown() {
            try? await future.get()
        }
    }
}
