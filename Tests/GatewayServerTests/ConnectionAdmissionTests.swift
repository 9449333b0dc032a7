@testable import GatewayServer
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

/// The admission table alone (embedded channels, phases set by hand): per-address caps,
/// overload shedding order, PROXY re-counting.
@Suite("Connection admission: per-address caps, overload shedding oldest idle and half-sent first")
struct ConnectionAdmissionTests {
    final class Counts: Sendable {
        let refused = Mutex<[String]>([])
        let shed = Mutex<[String]>([])
        var events: ConnectionAdmission.Events {
            .init(refused: { reason in self.refused.withLock { $0.append(reason.rawValue) } },
                  shed: { reason in self.shed.withLock { $0.append(reason.rawValue) } })
        }
    }

    static func connection(
        _ address: String, trusted: Bool = false, phase: ConnectionDeadlines.Phase = .awaitingHead, age: Int = 0
    ) -> ClientConnection {
        let connection = ClientConnection(channel: EmbeddedChannel(), peer: IPAddress(address), isTrustedPeer: trusted)
        connection.enter(phase, at: .now() - .seconds(Int64(age)))
        return connection
    }

    @Test("one address holds at most its cap; others and trusted proxies are unaffected; a closed one frees a place")
    func perAddress() {
        let counts = Counts()
        let admission = ConnectionAdmission(
            policy: .init(maxConnections: 1_000, maxPerAddress: 3), events: counts.events)
        let held = (0..<3).map { _ in Self.connection("198.51.100.7") }
        #expect(held.allSatisfy { admission.admit($0) == nil })
        #expect(admission.admit(Self.connection("198.51.100.7")) == .perAddress)
        #expect(admission.admit(Self.connection("::ffff:198.51.100.7")) == .perAddress)
        #expect(admission.admit(Self.connection("203.0.113.9")) == nil)
        #expect((0 ..< 10).allSatisfy { _ in admission.admit(Self.connection("10.0.0.1", trusted: true)) == nil })
        admission.release(held[0])
        #expect(admission.admit(Self.connection("198.51.100.7")) == nil)
        #expect(counts.refused.withLock { $0 } == ["per_address", "per_address"])
        #expect(admission.openCount == 14)
    }

    @Test("a PROXY protocol connection counts against the client its header names")
    func readmit() {
        let admission = ConnectionAdmission(policy: .init(maxConnections: 1_000, maxPerAddress: 2))
        let viaBalancer = (0 ..< 3).map { _ in Self.connection("10.0.0.1", trusted: true) }
        #expect(viaBalancer.allSatisfy { admission.admit($0) == nil })
        let client = IPAddress("198.51.100.7")!
        #expect(admission.readmit(viaBalancer[0], as: client) == nil)
        #expect(admission.readmit(viaBalancer[1], as: client) == nil)
        #expect(admission.readmit(viaBalancer[2], as: client) == .perAddress)
        #expect(admission.admit(Self.connection("198.51.100.7")) == .perAddress)
        admission.release(viaBalancer[0])
        #expect(admission.admit(Self.connection("198.51.100.7")) == nil)
    }

    @Test(
        "at 80 % of the cap: overloaded, the oldest idle and half-sent connections are shed down to 70 %, never one in flight"
    )
    func shedding() {
        let counts = Counts()
        let admission = ConnectionAdmission(policy: .init(maxConnections: 10, maxPerAddress: 0), events: counts.events)
        // 7 held: 2 busy (oldest of all), an idle keep-alive and 4 half-sent heads of various ages.
        let busy = [
            Self.connection("192.0.2.1", phase: .responding, age: 100),
            Self.connection("192.0.2.2", phase: .readingBody, age: 90),
        ]
        let idle = Self.connection("192.0.2.3", phase: .idle, age: 50)
        let heads = [40, 30, 20, 10].map { Self.connection("192.0.2.9", age: $0) }
        for connection in busy + [idle] + heads { #expect(admission.admit(connection) == nil) }
        #expect(!admission.isOverloaded)
        // The 8th reaches 80 %: shed down to 7 (70 % of 10), the newcomer included: the idle one goes.
        let newcomer = Self.connection("203.0.113.9")
        #expect(admission.admit(newcomer) == nil)
        #expect(admission.isOverloaded)
        #expect(counts.shed.withLock { $0 } == ["idle"])
        // The next one: the oldest half-sent head.
        let another = Self.connection("203.0.113.10")
        #expect(admission.admit(another) == nil)
        #expect(counts.shed.withLock { $0 } == ["idle", "slow_head"])
        #expect(
            idle.isShed.load(ordering: .relaxed) && heads[0].isShed.load(ordering: .relaxed)
                && !heads[1].isShed.load(ordering: .relaxed))
        #expect(
            ![newcomer, another].contains { $0.isShed.load(ordering: .relaxed) }
                && busy.allSatisfy { !$0.isShed.load(ordering: .relaxed) })
        // Closed shed connections leave; under 70 % the overload ends.
        admission.release(idle)
        admission.release(heads[0])
        #expect(admission.isOverloaded)
        admission.release(heads[1])
        #expect(!admission.isOverloaded)
    }

    @Test("while overloaded, an address at its fair share of the low-water mark is refused; a newcomer still gets in")
    func fairShare() {
        let counts = Counts()
        // High water 80, low water 70; the per-address cap (50) is never reached.
        let admission = ConnectionAdmission(
            policy: .init(maxConnections: 100, maxPerAddress: 50), events: counts.events)
        let flooders = ["192.0.2.1", "192.0.2.2"]
        for index in 0..<79 { #expect(admission.admit(Self.connection(flooders[index % 2], age: 100 - index)) == nil) }
        #expect(!admission.isOverloaded && counts.refused.withLock { $0 }.isEmpty)
        // The 80th connection reaches the high-water mark: 40 and 39 are past 70 / 2.
        #expect(admission.admit(Self.connection("192.0.2.1")) == .fairShare)
        #expect(admission.isOverloaded)
        #expect(admission.admit(Self.connection("192.0.2.2")) == .fairShare)
        // A third address holds nothing: admitted, and the oldest heads are shed for it.
        #expect(admission.admit(Self.connection("203.0.113.9")) == nil)
        #expect(counts.shed.withLock { $0.count } == 10)
        #expect(counts.refused.withLock { $0 } == ["fair_share", "fair_share"])
        // Not overloaded: nobody is held to a share.
        let calm = ConnectionAdmission(policy: .init(maxConnections: 100, maxPerAddress: 50))
        #expect((0 ..< 50).allSatisfy { _ in calm.admit(Self.connection("192.0.2.1")) == nil })
    }

    @Test("at the cap with every connection busy, a new one is refused as full")
    func full() {
        let counts = Counts()
        let admission = ConnectionAdmission(policy: .init(maxConnections: 4, maxPerAddress: 0), events: counts.events)
        for index in 0 ..< 4 {
            // Admitted before they were busy; now all have a request in flight.
            let connection = Self.connection("192.0.2.\(index)")
            _ = admission.admit(connection)
            connection.enter(.responding, at: .now())
        }
        #expect(admission.admit(Self.connection("203.0.113.9")) == .full)
        #expect(counts.refused.withLock { $0 }.last == "full")
    }

    @Test("deadlines: a head or idle period that begins while overloaded gets the overload timeout")
    func overloadTimeouts() {
        let limits = ConnectionLimits(
            headerTimeout: .seconds(10), idleTimeout: .seconds(60), overloadTimeout: .seconds(1))
        let now = NIODeadline.now()
        #expect(ConnectionDeadlines(limits: limits, now: now, overloaded: true).deadline == now + .seconds(1))
        var deadlines = ConnectionDeadlines(limits: limits, now: now)
        #expect(deadlines.deadline == now + .seconds(10))
        deadlines.headReceived(now: now)
        deadlines.endReceived(now: now)
        #expect(deadlines.deadline == now + .seconds(60))
        deadlines.responseEnded(now: now, overloaded: true)
        #expect(deadlines.phase == .idle && deadlines.deadline == now + .seconds(1))
    }
}
