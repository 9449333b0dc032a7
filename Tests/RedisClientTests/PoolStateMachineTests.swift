import NIOCore
@testable import RedisClient
import Testing

/// The pool's decisions without sockets or sleeps (issue 15, item 4): instants are made up,
/// connections are stand-ins, attempts are numbers.
@Suite("Redis pool state machine")
struct PoolStateMachineTests {
    final class Connection: PoolableConnection {
        let isActive: Bool
        init(active: Bool = true) { isActive = active }
    }

    typealias Machine = RedisPoolStateMachine<Connection, Int>

    static func at(_ ms: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000_000_000 + ms * 1_000_000)) }

    /// A lease that would start attempt `next` (and counts how many were started).
    static func lease(_ machine: inout Machine, at ms: Int64, next attempt: inout Int) -> Machine.LeaseAction {
        machine.lease(now: at(ms)) {
            attempt += 1
            return attempt
        }
    }

    @Test(
        "empty slots connect one attempt each; a command on a connecting slot waits for that attempt; ready slots are used round-robin"
    )
    func connectWaitAndRoundRobin() {
        var machine = Machine(size: 2, initialBackoff: .milliseconds(100), maxBackoff: .seconds(2))
        var attempts = 0
        guard case .connect(slot: 0, 1) = Self.lease(&machine, at: 0, next: &attempts),
              case .connect(slot: 1, 2) = Self.lease(&machine, at: 0, next: &attempts),
              case .wait(1) = Self.lease(&machine, at: 0, next: &attempts)
        else { Issue.record("expected connect, connect, wait"); return }
        let a = Connection(), b = Connection()
        let r1 = machine.connectSucceeded(slot: 0, connection: a)
        #expect(r1)
        let r2 = machine.connectSucceeded(slot: 1, connection: b)
        #expect(r2)
        #expect(machine.openConnections == 2)
        var used: [ObjectIdentifier] = []
        for _ in 0..<4 {
            guard case .use(let connection) = Self.lease(&machine, at: 1, next: &attempts) else {
                Issue.record("expected use")
                return
            }
            used.append(ObjectIdentifier(connection))
        }
        #expect(used == [ObjectIdentifier(b), ObjectIdentifier(a), ObjectIdentifier(b), ObjectIdentifier(a)])
        #expect(attempts == 2)
    }

    @Test(
        "failed connects back off exponentially up to the cap; while backing off a command uses another live connection or fails at once; a success resets"
    )
    func backoff() {
        var machine = Machine(size: 2, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(350))
        var attempts = 0
        _ = Self.lease(&machine, at: 0, next: &attempts)  // slot 0, attempt 1
        let r3 = machine.connectFailed(slot: 0, pending: 1, error: .connectionFailed("refused"), now: Self.at(10))
        #expect(r3 == .milliseconds(100))
        // Slot 1 is empty too, but the backoff holds: nothing live, fail without queueing.
        guard case .backingOff(let retryIn, let last) = Self.lease(&machine, at: 50, next: &attempts) else {
            Issue.record("expected backingOff")
            return
        }
        #expect(retryIn == .milliseconds(60))
        #expect(last == .connectionFailed("refused"))
        #expect(attempts == 1)
        // After each window a new attempt; each failure doubles the wait: 200 ms, then capped at 350.
        var expected: [Duration] = [.milliseconds(200), .milliseconds(350), .milliseconds(350)]
        var lastSlot = 0
        for (attempt, at) in [(2, Int64(110)), (3, 400), (4, 800)] {
            guard case .connect(let slot, let pending) = Self.lease(&machine, at: at, next: &attempts),
                pending == attempt
            else {
                Issue.record("expected attempt \(attempt) at \(at) ms")
                return
            }
            let delay = machine.connectFailed(
                slot: slot, pending: pending, error: .connectionFailed("refused"), now: Self.at(at))
            #expect(delay == expected.removeFirst())
            lastSlot = slot
        }
        // One live connection: a success lifts the backoff ...
        let live = Connection()
        let connected = machine.connectSucceeded(slot: lastSlot, connection: live)
        #expect(connected)
        #expect(machine.backoff == nil && machine.lastConnectError == nil)
        var reconnect: (slot: Int, pending: Int)?
        for _ in 0..<2 {
            if case .connect(let slot, let pending) = Self.lease(&machine, at: 801, next: &attempts) {
                reconnect = (slot, pending)
            }
        }
        guard let reconnect else {
            Issue.record("the empty slot did not reconnect at once")
            return
        }
        let again = machine.connectFailed(
            slot: reconnect.slot, pending: reconnect.pending, error: .connectionFailed("refused"), now: Self.at(801))
        #expect(again == .milliseconds(100))
        // ... and while the other slot backs off, every command uses the live one.
        for _ in 0..<3 {
            guard case .use(let connection) = Self.lease(&machine, at: 850, next: &attempts) else {
                Issue.record("expected the live connection")
                return
            }
            #expect(connection === live)
        }
    }

    @Test(
        "a stale attempt's failure does not empty a slot a newer attempt holds; a closed connection empties only its own slot; a dead connection reconnects"
    )
    func staleEvents() {
        var machine = Machine(size: 1, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1))
        var attempts = 0
        _ = Self.lease(&machine, at: 0, next: &attempts)  // attempt 1
        _ = machine.connectFailed(slot: 0, pending: 99, error: .connectionFailed("x"), now: Self.at(0))
        guard case .connecting(1) = machine.slots[0] else { Issue.record("the newer attempt lost its slot"); return }
        let first = Connection()
        let r9 = machine.connectSucceeded(slot: 0, connection: first)
        #expect(r9)
        machine.connectionClosed(slot: 0, connection: Connection())
        guard case .ready = machine.slots[0] else {
            Issue.record("another connection's close emptied the slot")
            return
        }
        machine.connectionClosed(slot: 0, connection: first)
        guard case .empty = machine.slots[0] else { Issue.record("the slot kept a closed connection"); return }
        let r10 = machine.connectSucceeded(slot: 0, connection: Connection(active: false))
        #expect(r10)
        guard case .connect(slot: 0, 2) = Self.lease(&machine, at: 1, next: &attempts) else {
            Issue.record("a dead connection is not used")
            return
        }
    }

    @Test("a failover drops ready connections, keeps attempts in flight and lifts the backoff")
    func failover() {
        var machine = Machine(size: 3, initialBackoff: .seconds(1), maxBackoff: .seconds(8))
        var attempts = 0
        for _ in 0..<3 { _ = Self.lease(&machine, at: 0, next: &attempts) }
        let a = Connection()
        let r11 = machine.connectSucceeded(slot: 0, connection: a)
        #expect(r11)
        _ = machine.connectFailed(slot: 2, pending: 3, error: .connectionFailed("x"), now: Self.at(0))
        let r12 = machine.dropConnections()
        #expect(r12.map(ObjectIdentifier.init) == [ObjectIdentifier(a)])
        #expect(machine.backoff == nil)
        guard case .empty = machine.slots[0], case .connecting(2) = machine.slots[1] else {
            Issue.record("wrong slots after failover")
            return
        }
        guard case .connect(slot: 0, 4) = Self.lease(&machine, at: 1, next: &attempts) else {
            Issue.record("no immediate reconnect")
            return
        }
    }

    @Test(
        "shutdown answers every lease with shutDown, returns the slots once, and refuses a connection that arrives afterwards"
    )
    func shutdownRaces() {
        var machine = Machine(size: 2, initialBackoff: .seconds(1), maxBackoff: .seconds(8))
        var attempts = 0
        _ = Self.lease(&machine, at: 0, next: &attempts)
        let a = Connection()
        let r13 = machine.connectSucceeded(slot: 0, connection: a)
        #expect(r13)
        _ = Self.lease(&machine, at: 0, next: &attempts)  // slot 1 connecting, attempt 2
        let slots = machine.shutdown()
        #expect(slots?.count == 2)
        let r14 = machine.shutdown()
        #expect(r14 == nil)
        guard case .shutDown = Self.lease(&machine, at: 1, next: &attempts) else {
            Issue.record("lease after shutdown")
            return
        }
        let r15 = machine.connectSucceeded(slot: 1, connection: Connection())
        #expect(!r15)
        let r16 = machine.dropConnections()
        #expect(r16.isEmpty)
        #expect(machine.openConnections == 0)
    }

    @Test(
        "after a command timeout: every ready slot closes, commands fail at once, one probe at a time once due; a probe that connects ends it"
    )
    func suspectAfterTimeout() {
        var machine = Machine(size: 2, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(350))
        var attempts = 0
        _ = Self.lease(&machine, at: 0, next: &attempts)
        _ = Self.lease(&machine, at: 0, next: &attempts)
        let a = Connection(), b = Connection()
        _ = machine.connectSucceeded(slot: 0, connection: a)
        _ = machine.connectSucceeded(slot: 1, connection: b)
        let dropped = machine.commandTimedOut(now: Self.at(10))
        #expect(Set(dropped.map(ObjectIdentifier.init)) == [ObjectIdentifier(a), ObjectIdentifier(b)])
        #expect(machine.suspect && machine.openConnections == 0)
        // Before the backoff: fail at once, start nothing.
        guard case .backingOff(let retryIn, .timeout?) = Self.lease(&machine, at: 50, next: &attempts) else {
            Issue.record("expected backingOff with the timeout")
            return
        }
        #expect(retryIn == .milliseconds(60))
        // Due: one probe; while it runs, everyone else fails at once (no waiting on it).
        guard case .probe(let slot, 3, _) = Self.lease(&machine, at: 110, next: &attempts),
              case .backingOff = Self.lease(&machine, at: 120, next: &attempts)
        else {
            Issue.record("expected one probe, then backingOff")
            return
        }
        #expect(attempts == 3)
        // The probe fails: still suspect, the wait doubles.
        let wait = machine.connectFailed(slot: slot, pending: 3, error: .timeout, now: Self.at(2_110))
        #expect(wait == .milliseconds(200))
        #expect(machine.suspect)
        guard case .backingOff = Self.lease(&machine, at: 2_200, next: &attempts),
              case .probe(let next, 4, _) = Self.lease(&machine, at: 2_310, next: &attempts)
        else {
            Issue.record("expected backingOff, then the next probe")
            return
        }
        // It connects: commands flow again (the other slot connects on demand, waited for).
        let c = Connection()
        let connected = machine.connectSucceeded(slot: next, connection: c)
        #expect(connected && !machine.suspect)
        var used = 0
        for _ in 0..<2 {
            switch Self.lease(&machine, at: 2_400, next: &attempts) {
            case .use(let connection): used += connection === c ? 1 : 0
            case .connect: break
            default: Issue.record("expected use or connect after the probe")
            }
        }
        #expect(used == 1)
    }
}
