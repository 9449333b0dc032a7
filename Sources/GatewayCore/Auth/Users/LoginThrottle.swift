import Foundation

/// Slows password guessing without letting anyone lock an account's owner out.
///
/// Counters live in the shared ``Cache`` (Redis with several replicas), per tenant, and
/// expire `window` after their last change:
///
/// - **Per account and client address.** The first `freeAttempts` attempts of a
///   (username, address) pair are evaluated at once. After that the pair may make one
///   attempt at a time, each failure closing it for a growing delay (`firstDelay`,
///   doubled per further failure, at most `maxDelay`). An attempt while it is closed is
///   refused as *throttled* — a distinct answer with the time to wait — without checking
///   the password, so it costs the attacker time and the server no scrypt work. Only
///   that pair is held back: the owner on another network, or a colleague behind the same
///   carrier NAT who types their own username, is not.
/// - **Per account, from anywhere.** Failures of one username across all addresses slow
///   every attempt for it by a server-side pause that grows with them (`accountSlowdown`
///   per failure past `accountFailuresBeforeSlowdown`, at most `maxSlowdown`). The attempt
///   is delayed, never refused.
/// - **Per address, across accounts** (credential stuffing): the same kind of pause,
///   past `addressFailuresBeforeSlowdown` failures from one address.
///
/// A successful sign-in clears its pair's counter.
public struct LoginThrottle: Sendable {
    /// The numbers of the policy.
    public struct Policy: Sendable, Equatable {
        public var freeAttempts: Int64
        public var firstDelay: Duration
        public var maxDelay: Duration
        public var accountFailuresBeforeSlowdown: Int64
        public var accountSlowdown: Duration
        public var addressFailuresBeforeSlowdown: Int64
        public var addressSlowdown: Duration
        public var maxSlowdown: Duration
        public var window: Duration

        public init(freeAttempts: Int64 = 5, firstDelay: Duration = .seconds(2), maxDelay: Duration = .seconds(300),
                    accountFailuresBeforeSlowdown: Int64 = 20, accountSlowdown: Duration = .milliseconds(250),
                    addressFailuresBeforeSlowdown: Int64 = 100, addressSlowdown: Duration = .milliseconds(50),
                    maxSlowdown: Duration = .seconds(3), window: Duration = .seconds(900)) {
            self.freeAttempts = freeAttempts
            self.firstDelay = firstDelay
            self.maxDelay = maxDelay
            self.accountFailuresBeforeSlowdown = accountFailuresBeforeSlowdown
            self.accountSlowdown = accountSlowdown
            self.addressFailuresBeforeSlowdown = addressFailuresBeforeSlowdown
            self.addressSlowdown = addressSlowdown
            self.maxSlowdown = maxSlowdown
            self.window = window
        }

        /// How long a pair stays closed after its `attempt`-th attempt failed.
        func delay(afterAttempt attempt: Int64) -> Duration {
            guard attempt >= freeAttempts else { return .zero }
            let doublings = min(attempt - freeAttempts, 30)
            let milliseconds = min(firstDelay.wholeMilliseconds << doublings, maxDelay.wholeMilliseconds)
            return .milliseconds(milliseconds)
        }

        /// The server-side pause for `accountFailures` and `addressFailures` in the window.
        func slowdown(accountFailures: Int64, addressFailures: Int64) -> Duration {
            let account = accountSlowdown * Int(max(0, accountFailures - accountFailuresBeforeSlowdown + 1))
            let address = addressSlowdown * Int(max(0, addressFailures - addressFailuresBeforeSlowdown + 1))
            return min(max(account, address), maxSlowdown)
        }
    }

    /// What to do with an attempt.
    public enum Decision: Sendable, Equatable {
        /// Check the password, after pausing for `slowdown`.
        case proceed(slowdown: Duration)
        /// Refuse without checking; the pair may try again after `retryAfter`.
        case throttled(retryAfter: Duration)
    }

    let cache: any Cache
    public let policy: Policy
    let now: @Sendable () -> Int64

    /// - Parameter now: milliseconds since 1970 (injected in tests).
    public init(cache: any Cache, policy: Policy = Policy(), now: @escaping @Sendable () -> Int64 = CachedAnswer.now) {
        self.cache = cache
        self.policy = policy
        self.now = now
    }

    private struct Keys {
        let attempts: String
        let gate: String
        let hold: String
        let account: String
        let address: String?
    }

    private func keys(_ tenantID: String, _ username: String, _ address: String?) -> Keys {
        let user = username.lowercased()
        let pair = "\(tenantID):\(user.utf8.count):\(user):\(address ?? "-")"
        return Keys(
            attempts: "oauth:login:pair:" + pair, gate: "oauth:login:gate:" + pair, hold: "oauth:login:hold:" + pair,
            account: "oauth:login:account:\(tenantID):\(user)",
            address: address.map { "oauth:login:address:\(tenantID):\($0)" })
    }

    /// Decides an attempt and counts it. Cache failures let the attempt proceed (the
    /// password check still stands; a Redis outage must not stop every sign-in).
    public func check(tenantID: String, username: String, address: String?) async -> Decision {
        let keys = keys(tenantID, username, address)
        let now = now()
        if let until = await gate(keys.gate), until > now {
            return .throttled(retryAfter: .milliseconds(until - now))
        }
        guard let attempt = try? await cache.increment(keys.attempts, by: 1, ttl: policy.window) else {
            return .proceed(slowdown: .zero)
        }
        if attempt > policy.freeAttempts {
            // One attempt at a time past the free ones: this one holds the pair until it
            // has failed (then the gate closes for the delay) or succeeded (then all clears).
            let held = policy.maxSlowdown + .seconds(10)
            if (try? await cache.setIfAbsent(keys.hold, [1], ttl: held)) == false {
                _ = try? await cache.increment(keys.attempts, by: -1, ttl: policy.window)
                return .throttled(retryAfter: .seconds(1))
            }
        }
        let account = await counter(keys.account)
        let addressFailures = await keys.address.asyncMap(counter) ?? 0
        return .proceed(slowdown: policy.slowdown(accountFailures: account, addressFailures: addressFailures))
    }

    /// Records a failed attempt: closes the pair for its delay, counts the account and address.
    public func recordFailure(tenantID: String, username: String, address: String?) async {
        let keys = keys(tenantID, username, address)
        let attempt = await counter(keys.attempts)
        let delay = policy.delay(afterAttempt: attempt)
        if delay > .zero {
            let until = now() + delay.wholeMilliseconds
            try? await cache.set(keys.gate, Array(String(until).utf8), ttl: delay)
        }
        _ = try? await cache.delete([keys.hold])
        _ = try? await cache.increment(keys.account, by: 1, ttl: policy.window)
        if let address = keys.address { _ = try? await cache.increment(address, by: 1, ttl: policy.window) }
    }

    /// Records a successful sign-in: the pair starts afresh.
    public func recordSuccess(tenantID: String, username: String, address: String?) async {
        let keys = keys(tenantID, username, address)
        _ = try? await cache.delete([keys.attempts, keys.gate, keys.hold])
    }

    private func gate(_ key: String) async -> Int64? {
        guard let bytes = try? await cache.get(key) else { return nil }
        return Int64(String(decoding: bytes, as: UTF8.self))
    }

    private func counter(_ key: String) async -> Int64 {
        guard let bytes = try? await cache.get(key) else { return 0 }
        return Int64(String(decoding: bytes, as: UTF8.self)) ?? 0
    }
}
