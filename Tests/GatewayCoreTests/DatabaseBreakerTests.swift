import Synchronization
import Testing
@testable import GatewayCore

@Suite("Database breaker: opens after unanswered probes, refuses and wakes waiters, closes on an answer")
struct DatabaseBreakerTests {
    @Test("two unanswered probes in a row open it; an answer in between resets; the first answer closes it")
    func states() throws {
        let changes = Mutex<[Bool]>([])
        let breaker = DatabaseBreaker(policy: .init(failuresToOpen: 2)) { open in changes.withLock { $0.append(open) } }
        breaker.record(probeAnswered: false)
        breaker.record(probeAnswered: true)
        breaker.record(probeAnswered: false)
        #expect(!breaker.isOpen, "one miss at a time opens nothing")
        try breaker.check()
        // A statement waiting on the database is told the moment it opens.
        let woken = Mutex(0)
        let token = try #require(breaker.watch { woken.withLock { $0 += 1 } })
        let gone = try #require(breaker.watch { woken.withLock { $0 += 10 } })
        breaker.unwatch(gone)
        breaker.record(probeAnswered: false)
        #expect(breaker.isOpen && breaker.opens == 1)
        #expect(woken.withLock { $0 } == 1)
        #expect(throws: DatabaseUnavailable.self) { try breaker.check() }
        #expect(breaker.watch {} == nil, "open already: nothing to watch")
        breaker.unwatch(token)
        breaker.record(probeAnswered: false)
        #expect(breaker.opens == 1, "still the same opening")
        breaker.record(probeAnswered: true)
        #expect(!breaker.isOpen)
        try breaker.check()
        #expect(changes.withLock { $0 } == [true, false])
    }

    @Test("the probe loop opens it while the probe fails and closes it when it answers; cancelling ends it")
    func probeLoop() async throws {
        let answering = Atomic<Bool>(false)
        let breaker = DatabaseBreaker(policy: .init(probeInterval: .milliseconds(10), probeTimeout: .milliseconds(50)))
        let loop = Task {
            await breaker.run { _ in
                guard answering.load(ordering: .relaxed) else { throw DatabaseUnavailable(reason: "test") }
            }
        }
        #expect(await eventually { breaker.isOpen })
        answering.store(true, ordering: .relaxed)
        #expect(await eventually { !breaker.isOpen })
        loop.cancel()
        await loop.value
    }
}
