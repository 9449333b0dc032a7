import Foundation
import Synchronization
import Testing
@testable import GatewayCore

/// A continuous-clock instant the test moves by hand.
final class ManualInstant: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(by duration: Duration) { instant.withLock { $0 += duration } }
}

@Suite("Circuit breaker, bulkhead, retries")
struct ResilienceTests {
    @Test("opens on a failure rate over the window, half-opens after the open time, closes on a good probe")
    func breakerCycle() async throws {
        let transitions = Mutex<[CircuitBreaker.Phase]>([])
        let clock = ManualInstant()
        let breaker = CircuitBreaker(
            configuration: .init(
                window: .seconds(10), minimumCalls: 4, failureRatio: 0.5, openDuration: .milliseconds(200),
                halfOpenProbes: 1),
            onTransition: { phase in transitions.withLock { $0.append(phase) } }, now: { clock.now })
        for failure in [false, true, false, true] {
            #expect(breaker.acquire())
            breaker.record(failure: failure)
        }
        #expect(breaker.phase == .open)
        #expect(!breaker.acquire())
        clock.advance(by: .milliseconds(250))
        #expect(breaker.phase == .halfOpen)
        #expect(breaker.acquire())
        #expect(!breaker.acquire(), "only one probe while half-open")
        breaker.record(failure: true)
        #expect(breaker.phase == .open)
        clock.advance(by: .milliseconds(250))
        #expect(breaker.acquire())
        breaker.record(failure: false)
        #expect(breaker.phase == .closed)
        #expect(breaker.acquire())
        #expect(transitions.withLock { $0 } == [.open, .halfOpen, .open, .halfOpen, .closed])
    }

    @Test("an open breaker refuses calls without running them")
    func guardRefusesWhenOpen() async throws {
        let upstream = UpstreamGuard(
            breaker: CircuitBreaker(configuration: .init(minimumCalls: 2, openDuration: .seconds(60))),
            bulkhead: Bulkhead(limit: 4), retry: RetryPolicy(maxAttempts: 1), budget: RetryBudget()
        )
        let calls = Mutex(0)
        let deadline = ContinuousClock.now + .seconds(5)
        for _ in 0..<2 {
            await #expect(throws: UpstreamError.serverError(status: 500)) {
                try await upstream.run(deadline: deadline) { () async throws -> Int in
                    calls.withLock { $0 += 1 }
                    throw UpstreamError.serverError(status: 500)
                }
            }
        }
        await #expect(throws: UpstreamError.circuitOpen) {
            try await upstream.run(deadline: deadline) { () async throws -> Int in
                calls.withLock { $0 += 1 }
                return 1
            }
        }
        #expect(calls.withLock { $0 } == 2)
    }

    @Test("retries 5xx up to the attempt limit, never a 4xx")
    func retryRules() async throws {
        let upstream = UpstreamGuard(
            breaker: CircuitBreaker(), bulkhead: Bulkhead(limit: 4),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1)), budget: RetryBudget())
        let calls = Mutex(0)
        // Far away: this test is about attempt counting, not about the deadline (a loaded
        // machine once stalled it past a 5 s deadline, which rightly stops retries).
        let deadline = ContinuousClock.now + .seconds(120)
        await #expect(throws: UpstreamError.serverError(status: 502)) {
            try await upstream.run(deadline: deadline) { () async throws -> Int in
                calls.withLock { $0 += 1 }
                throw UpstreamError.serverError(status: 502)
            }
        }
        #expect(calls.withLock { $0 } == 3)
        calls.withLock { $0 = 0 }
        await #expect(throws: UpstreamError.notFound) {
            try await upstream.run(deadline: deadline) { () async throws -> Int in
                calls.withLock { $0 += 1 }
                throw UpstreamError.notFound
            }
        }
        #expect(calls.withLock { $0 } == 1)
    }

    @Test("the bulkhead refuses calls over its limit")
    func bulkhead() async throws {
        let bulkhead = Bulkhead(limit: 1)
        let entered = Gate()
        let release = Gate()
        let holder = Task {
            try await bulkhead.run {
                entered.open()
                await release.wait()
            }
        }
        await entered.wait()
        await #expect(throws: UpstreamError.overloaded) {
            try await bulkhead.run { 1 }
        }
        release.open()
        try await holder.value
        #expect(try await bulkhead.run { 2 } == 2)
    }
}
