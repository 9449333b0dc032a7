import NIOCore

/// A pooled connection as the pool's state machine sees it.
protocol PoolableConnection: AnyObject, Sendable {
    /// Whether the connection can still carry commands.
    var isActive: Bool { get }
}

extension RedisConnection: PoolableConnection {}

/// The pool's decisions as a value: which slot a command uses, when a slot connects, how
/// long to back off after a failed connect, what a failover or shutdown closes. No locks, no
/// I/O and no clock of its own (every instant is passed in), so each transition is a plain
/// unit test; ``RedisConnectionPool`` keeps it in a mutex and carries out the actions.
///
/// `Pending` identifies a connect attempt in flight (the pool's future; a number in tests).
struct RedisPoolStateMachine<Connection: PoolableConnection, Pending: Equatable & Sendable>: Sendable {
    enum Slot: Sendable {
        case empty
        case connecting(Pending)
        case ready(Connection)
    }

    /// What a command should do.
    enum LeaseAction: Sendable {
        /// Send on this live connection.
        case use(Connection)
        /// Wait for this connect attempt.
        case wait(Pending)
        /// Wait for the new attempt the caller must start for `slot`.
        case connect(slot: Int, Pending)
        /// The pool is shut down.
        case shutDown
        /// Backing off after failed connects, with nothing live to fall back on: fail now,
        /// never queue. `retryIn` is the time to the next attempt.
        case backingOff(retryIn: TimeAmount, lastError: RedisError?)
        /// The server stopped answering (``commandTimedOut(now:)``) and a probe is due: the
        /// caller starts this attempt for `slot` in the background, with a command that must
        /// be answered, and fails now like ``backingOff(retryIn:lastError:)``.
        case probe(slot: Int, Pending, lastError: RedisError?)
    }

    private(set) var slots: [Slot]
    private(set) var isShutdown = false
    private(set) var backoff: Duration?
    private(set) var nextAttempt = NIODeadline.uptimeNanoseconds(0)
    private(set) var lastConnectError: RedisError?
    /// A command timed out and no connect has succeeded since: the server (or the way to it)
    /// is not answering, so commands fail at once instead of waiting for it, and one attempt
    /// at a time probes it. A paused primary would otherwise hold every command for the
    /// command timeout until Sentinel fails over.
    private(set) var suspect = false
    private var nextSlot = 0
    let initialBackoff: Duration
    let maxBackoff: Duration

    init(size: Int, initialBackoff: Duration, maxBackoff: Duration) {
        slots = Array(repeating: .empty, count: max(1, size))
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }

    /// Pooled connections open right now.
    var openConnections: Int {
        slots.reduce(0) { count, slot in
            if case .ready(let connection) = slot, connection.isActive { return count + 1 }
            return count
        }
    }

    /// The next slot round-robin: its live connection, its attempt in flight, or a new
    /// attempt (`startAttempt` makes its token) unless backing off; when backing off, any
    /// other live connection or attempt, else ``LeaseAction/backingOff(retryIn:lastError:)``.
    mutating func lease(now: NIODeadline, startAttempt: () -> Pending) -> LeaseAction {
        if isShutdown { return .shutDown }
        if suspect { return leaseWhileSuspect(now: now, startAttempt: startAttempt) }
        let count = slots.count
        let start = nextSlot
        nextSlot = (start + 1) % count
        switch slots[start] {
        case .ready(let connection) where connection.isActive:
            return .use(connection)
        case .connecting(let pending):
            return .wait(pending)
        case .ready, .empty:
            if now >= nextAttempt {
                let pending = startAttempt()
                slots[start] = .connecting(pending)
                return .connect(slot: start, pending)
            }
        }
        for offset in 1..<max(count, 1) {
            if case .ready(let connection) = slots[(start + offset) % count], connection.isActive {
                return .use(connection)
            }
        }
        for offset in 1..<max(count, 1) {
            if case .connecting(let pending) = slots[(start + offset) % count] { return .wait(pending) }
        }
        return .backingOff(retryIn: nextAttempt - now, lastError: lastConnectError)
    }

    /// Suspect: a probe when one is due and none is in flight, else fail at once.
    private mutating func leaseWhileSuspect(now: NIODeadline, startAttempt: () -> Pending) -> LeaseAction {
        let probing = slots.contains { if case .connecting = $0 { true } else { false } }
        guard !probing, now >= nextAttempt else {
            return .backingOff(retryIn: max(nextAttempt - now, .zero), lastError: lastConnectError)
        }
        let slot = nextSlot
        nextSlot = (slot + 1) % slots.count
        let pending = startAttempt()
        slots[slot] = .connecting(pending)
        return .probe(slot: slot, pending, lastError: lastConnectError)
    }

    /// A command found no answer within the command timeout at `now`: the pool turns
    /// ``suspect``, every ready slot empties (the connections are returned to close: their
    /// commands would wait the same way) and the first probe waits a backoff, as after a
    /// failed connect.
    mutating func commandTimedOut(now: NIODeadline) -> [Connection] {
        guard !isShutdown else { return [] }
        suspect = true
        backOff(after: .timeout, now: now)
        return emptyReadySlots()
    }

    /// The attempt for `slot` connected. Returns false when the pool shut down meanwhile
    /// (the caller closes the connection).
    mutating func connectSucceeded(slot: Int, connection: Connection) -> Bool {
        guard !isShutdown else { return false }
        slots[slot] = .ready(connection)
        suspect = false
        backoff = nil
        lastConnectError = nil
        nextAttempt = .uptimeNanoseconds(0)
        return true
    }

    /// The attempt `pending` for `slot` failed at `now`: the slot empties (unless a newer
    /// attempt took it) and the next attempt waits a backoff doubling from
    /// `initialBackoff` up to `maxBackoff`, which is returned.
    mutating func connectFailed(slot: Int, pending: Pending, error: RedisError, now: NIODeadline) -> Duration {
        if case .connecting(let current) = slots[slot], current == pending { slots[slot] = .empty }
        return backOff(after: error, now: now)
    }

    /// The next attempt waits a backoff doubling from `initialBackoff` up to `maxBackoff`
    /// (returned); `error` is what commands failing meanwhile report.
    @discardableResult
    private mutating func backOff(after error: RedisError, now: NIODeadline) -> Duration {
        let delay = backoff.map { min($0 * 2, maxBackoff) } ?? initialBackoff
        backoff = delay
        nextAttempt = now + TimeAmount(delay)
        lastConnectError = error
        return delay
    }

    /// `connection` closed: its slot empties if it still holds it.
    mutating func connectionClosed(slot: Int, connection: Connection) {
        if case .ready(let current) = slots[slot], current === connection { slots[slot] = .empty }
    }

    /// A failover: every ready slot empties (attempts in flight stay) and the backoff is
    /// lifted so the next command connects at once. Returns the connections to close.
    mutating func dropConnections() -> [Connection] {
        guard !isShutdown else { return [] }
        backoff = nil
        nextAttempt = .uptimeNanoseconds(0)
        return emptyReadySlots()
    }

    /// Every ready slot empties (attempts in flight stay); returns the connections to close.
    private mutating func emptyReadySlots() -> [Connection] {
        var emptied: [Connection] = []
        for index in slots.indices {
            if case .ready(let connection) = slots[index] {
                emptied.append(connection)
                slots[index] = .empty
            }
        }
        return emptied
    }

    /// Shuts down: every slot empties. Returns what was in them to close (nil when already shut down).
    mutating func shutdown() -> [Slot]? {
        guard !isShutdown else { return nil }
        isShutdown = true
        defer { slots = slots.map { _ in .empty } }
        return slots
    }
}
