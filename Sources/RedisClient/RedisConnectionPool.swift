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
/// - After a command timed out, every pooled connection is closed and commands fail at once
///   until a probe (a connect that must get an answer: `ROLE` with Sentinel, else `PING`)
///   succeeds; probes run in the background, one at a time, on the same backoff.
final class RedisConnectionPool: Sendable {
    private typealias Machine = RedisPoolStateMachine<RedisConnection, EventLoopFuture<RedisConnection>>

    private struct State: Sendable {
        /// Slots, backoff and shutdown: every decision (see ``RedisPoolStateMachine``).
        var machine: Machine
        /// Dedicated connections (subscriptions), closed on shutdown.
        var dedicated: [ObjectIdentifier: any Channel] = [:]
        /// Follows Sentinel failovers; started with the first connect.
        var watcher: Task<Void, Never>?
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
        self.state = Mutex(
            State(
                machine: Machine(
                    size: configuration.poolSize, initialBackoff: configuration.reconnectInitialBackoff,
                    maxBackoff: configuration.reconnectMaxBackoff
                )))
    }

    var isShutdown: Bool { self.state.withLock { $0.machine.isShutdown } }

    /// Pooled connections that are open right now (subscriptions not counted).
    var openConnections: Int { self.state.withLock { $0.machine.openConnections } }

    /// Sends one encoded command on a pooled connection and returns its raw reply.
    func execute(_ payload: ByteBuffer) async throws(RedisError) -> RESPValue {
        let connection = try await self.leaseConnection()
        do {
            return try await connection.send(payload).get()
        } catch {
            let failure = RedisError.wrapping(error)
            if failure == .timeout { self.commandTimedOut() }
            throw failure
        }
    }

    /// A command got no answer in time: the pool turns suspect (see the type's documentation).
    private func commandTimedOut() {
        let dropped = self.state.withLock { $0.machine.commandTimedOut(now: .now()) }
        guard !dropped.isEmpty else { return }
        self.logger.warning(
            "redis command timed out; failing commands at once until the server answers a probe",
            metadata: ["server": "\(self.configuration.addressDescription)"])
        for connection in dropped {
            connection.close(error: .connectionFailed("closed after a command on another connection timed out"))
        }
    }

    /// Picks the next slot round-robin, connecting it if needed (see the type's documentation).
    func leaseConnection() async throws(RedisError) -> RedisConnection {
        let now = NIODeadline.now()
        var promise: EventLoopPromise<RedisConnection>?
        let lease = self.state.withLock { state in
            state.machine.lease(now: now) {
                let started = self.eventLoopGroup.next().makePromise(of: RedisConnection.self)
                promise = started
                return started.futureResult
            }
        }
        let future: EventLoopFuture<RedisConnection>
        switch lease {
        case .use(let connection):
            return connection
        case .shutDown:
            throw .shutdown
        case .backingOff(let retryIn, let lastError):
            let last = lastError.map { "; last error: \($0)" } ?? ""
            throw .connectionFailed(
                "\(self.configuration.addressDescription) unavailable, next reconnect attempt in \(retryIn.nanoseconds / 1_000_000) ms\(last)"
            )
        case .wait(let pending):
            future = pending
        case .connect(let slot, let pending):
            if let promise { self.startConnect(slot: slot, promise: promise) }
            future = pending
        case .probe(let slot, _, let lastError):
            if let promise { self.startConnect(slot: slot, promise: promise, probe: true) }
            let last = lastError.map { "; last error: \($0)" } ?? ""
            throw .connectionFailed(
                "\(self.configuration.addressDescription) is not answering; probing it in the background\(last)")
        }
        do {
            return try await future.get()
        } catch {
            throw RedisError.wrapping(error)
        }
    }

    /// - Parameter probe: the connect must get an answer to a command before it counts.
    private func startConnect(slot: Int, promise: EventLoopPromise<RedisConnection>, probe: Bool = false) {
        self.startFailoverWatcherIfNeeded()
        let eventLoop = promise.futureResult.eventLoop
        Task {
            let result: Result<RedisConnection, any Error>
            do {
                result = .success(try await self.locator.connectMaster(on: eventLoop, probe: probe))
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
            guard state.watcher == nil, !state.machine.isShutdown else { return }
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
        let (dropped, dedicated) = self.state.withLock { state -> ([RedisConnection], [any Channel]) in
            guard !state.machine.isShutdown else { return ([], []) }
            return (state.machine.dropConnections(), Array(state.dedicated.values))
        }
        let error = RedisError.connectionFailed(reason)
        for connection in dropped {
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
            guard self.state.withLock({ $0.machine.connectSucceeded(slot: slot, connection: connection) }) else {
                connection.close(error: .shutdown)
                promise.fail(RedisError.shutdown)
                return
            }
            connection.closeFuture.whenComplete { _ in
                self.state.withLock { $0.machine.connectionClosed(slot: slot, connection: connection) }
                self.logger.debug("redis connection closed", metadata: ["slot": "\(slot)"])
            }
            promise.succeed(connection)

        case .failure(let error):
            let redisError = RedisError.wrapping(error)
            let delay = self.state.withLock {
                $0.machine.connectFailed(slot: slot, pending: promise.futureResult, error: redisError, now: .now())
            }
            self.logger.warning(
                "redis connect failed; backing off",
                metadata: ["error": "\(redisError)", "backoff": "\(delay)"]
            )
            promise.fail(redisError)
        }
    }

    // MARK: Dedicated connections

    /// Tracks a dedicated channel so shutdown closes it. Returns `false` if already shut down.
    func register(dedicated channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let registered = self.state.withLock { state in
            if state.machine.isShutdown { return false }
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
        let (slots, dedicated) = self.state.withLock { state -> ([Machine.Slot], [any Channel]) in
            guard let slots = state.machine.shutdown() else { return ([], []) }
            state.watcher?.cancel()
            let dedicated = Array(state.dedicated.values)
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
