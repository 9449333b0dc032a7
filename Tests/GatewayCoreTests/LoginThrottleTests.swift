import Foundation
import Synchronization
import Testing
@testable import GatewayCore

/// A clock the test moves by hand (ms since 1970; monotonic instants run ahead of the
/// system's by as much as it was moved, or, `frozen`, stand still until it is moved).
final class ManualClock: Sendable {
    private let value = Mutex<Int64>(1_700_000_000_000)
    private let advanced = Mutex<Duration>(.zero)
    /// The system's instant when the clock was made, for frozen instants (nil: they run).
    private let frozenAt: ContinuousClock.Instant?

    /// - Parameter frozen: monotonic instants move only when the test moves them, so a test
    ///   slowed down by a loaded machine sees no time pass on its own.
    init(frozen: Bool = false) {
        frozenAt = frozen ? ContinuousClock.now : nil
    }

    var now: Int64 { value.withLock { $0 } }
    func advance(_ duration: Duration) {
        value.withLock { $0 += duration.wholeMilliseconds }
        advanced.withLock { $0 += duration }
    }

    /// This clock as the gateway's ``WallClock``.
    var wall: WallClock {
        WallClock(
            now: { StoreClock.date(self.now) },
            instant: { (self.frozenAt ?? ContinuousClock.now) + self.advanced.withLock { $0 } })
    }
}

@Suite("Login throttle: guessing slows down, owners are never locked out")
struct LoginThrottleTests {
    let clock = ManualClock()
    let policy = LoginThrottle.Policy(
        freeAttempts: 3, firstDelay: .seconds(2), maxDelay: .seconds(60),
        accountFailuresBeforeSlowdown: 5, accountSlowdown: .milliseconds(100),
        addressFailuresBeforeSlowdown: 8, addressSlowdown: .milliseconds(10), maxSlowdown: .seconds(1))

    func throttle(_ cache: MemoryCache = MemoryCache()) -> LoginThrottle {
        let clock = self.clock
        return LoginThrottle(cache: cache, policy: policy, now: { clock.now })
    }

    /// One failed attempt; returns the decision it got.
    @discardableResult
    func fail(_ throttle: LoginThrottle, _ user: String, _ address: String) async -> LoginThrottle.Decision {
        let decision = await throttle.check(tenantID: "t", username: user, address: address)
        if case .proceed = decision { await throttle.recordFailure(tenantID: "t", username: user, address: address) }
        return decision
    }

    @Test("a pair gets its free attempts, then waits a doubling delay; other pairs are not held back")
    func pairDelays() async {
        let throttle = throttle()
        for _ in 0..<3 { #expect(await fail(throttle, "alice", "10.0.0.1") == .proceed(slowdown: .zero)) }
        // The third failure closed the pair for 2 s: the next attempt is not even evaluated.
        #expect(
            await throttle.check(tenantID: "t", username: "alice", address: "10.0.0.1")
                == .throttled(retryAfter: .seconds(2)))
        #expect(
            await throttle.check(tenantID: "t", username: "ALICE", address: "10.0.0.1")
                == .throttled(retryAfter: .seconds(2)))
        // The owner on another network, and another user on the same network, go ahead.
        #expect(
            await throttle.check(tenantID: "t", username: "alice", address: "10.9.9.9") == .proceed(slowdown: .zero))
        #expect(await throttle.check(tenantID: "t", username: "bob", address: "10.0.0.1") == .proceed(slowdown: .zero))
        #expect(
            await throttle.check(tenantID: "other", username: "alice", address: "10.0.0.1") == .proceed(slowdown: .zero)
        )

        clock.advance(.seconds(2))
        #expect(await fail(throttle, "alice", "10.0.0.1") == .proceed(slowdown: .zero))
        #expect(
            await throttle.check(tenantID: "t", username: "alice", address: "10.0.0.1")
                == .throttled(retryAfter: .seconds(4)))
        clock.advance(.seconds(4))
        #expect(await fail(throttle, "alice", "10.0.0.1") == .proceed(slowdown: .zero))
        #expect(
            await throttle.check(tenantID: "t", username: "alice", address: "10.0.0.1")
                == .throttled(retryAfter: .seconds(8)))
    }

    @Test("past the free attempts, one attempt at a time: parallel guesses are held back")
    func oneAtATime() async {
        let throttle = throttle()
        for _ in 0..<3 { await fail(throttle, "carol", "10.0.0.2") }
        clock.advance(.seconds(2))
        let decisions = await withTaskGroup(of: LoginThrottle.Decision.self) { group in
            for _ in 0..<20 {
                group.addTask { await throttle.check(tenantID: "t", username: "carol", address: "10.0.0.2") }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(decisions.filter { $0 == .proceed(slowdown: .zero) }.count == 1)
    }

    @Test("30 rapid guesses at one account from one address: at most the free ones and one more are evaluated")
    func thirtyGuesses() async {
        let throttle = throttle()
        var evaluated = 0
        for _ in 0..<30 {
            if case .proceed = await fail(throttle, "dave", "10.0.0.3") { evaluated += 1 }
            clock.advance(.milliseconds(100))
        }
        #expect(evaluated == 4)
    }

    @Test("a success clears the pair")
    func successClears() async {
        let throttle = throttle()
        for _ in 0..<3 { await fail(throttle, "erin", "10.0.0.4") }
        clock.advance(.seconds(2))
        #expect(await throttle.check(tenantID: "t", username: "erin", address: "10.0.0.4") == .proceed(slowdown: .zero))
        await throttle.recordSuccess(tenantID: "t", username: "erin", address: "10.0.0.4")
        // Three free attempts again (the account's failures still count towards its slowdown).
        for _ in 0..<3 {
            guard case .proceed = await fail(throttle, "erin", "10.0.0.4") else {
                Issue.record("held back after a success")
                return
            }
        }
    }

    @Test("failures of one account from many addresses slow every attempt for it, never refuse it")
    func accountSlowdown() async {
        let throttle = throttle()
        for index in 0..<5 { await fail(throttle, "frank", "10.1.0.\(index)") }
        #expect(
            await throttle.check(tenantID: "t", username: "frank", address: "10.2.0.1")
                == .proceed(slowdown: .milliseconds(100)))
        for index in 5..<40 { await fail(throttle, "frank", "10.1.0.\(index)") }
        // Capped, and still a proceed for a fresh address (the owner).
        #expect(
            await throttle.check(tenantID: "t", username: "frank", address: "10.2.0.2")
                == .proceed(slowdown: .seconds(1)))
    }

    @Test("failures from one address across accounts slow that address only")
    func addressSlowdown() async {
        let throttle = throttle()
        for index in 0..<10 { await fail(throttle, "user\(index)", "10.3.0.1") }
        #expect(
            await throttle.check(tenantID: "t", username: "grace", address: "10.3.0.1")
                == .proceed(slowdown: .milliseconds(30)))
        #expect(
            await throttle.check(tenantID: "t", username: "grace", address: "10.3.0.2") == .proceed(slowdown: .zero))
    }

    @Test("delays double from the first and stop at the maximum")
    func delayGrowth() {
        #expect(policy.delay(afterAttempt: 2) == .zero)
        #expect(policy.delay(afterAttempt: 3) == .seconds(2))
        #expect(policy.delay(afterAttempt: 4) == .seconds(4))
        #expect(policy.delay(afterAttempt: 7) == .seconds(32))
        #expect(policy.delay(afterAttempt: 8) == .seconds(60))
        #expect(policy.delay(afterAttempt: 1_000) == .seconds(60))
    }
}
