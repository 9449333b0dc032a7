import Synchronization

/// The ``UpstreamGuard`` of each tenant × upstream, created on first use.
public final class UpstreamGuards: Sendable {
    /// Parameters every new guard gets.
    public struct Configuration: Sendable {
        public var breaker: CircuitBreaker.Configuration
        public var maxInFlight: Int
        public var retry: RetryPolicy

        public init(breaker: CircuitBreaker.Configuration = .init(), maxInFlight: Int = 256, retry: RetryPolicy = .init()) {
            self.breaker = breaker
            self.maxInFlight = maxInFlight
            self.retry = retry
        }
    }

    private let configuration: Configuration
    private let guards = Mutex<[String: UpstreamGuard]>([:])

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The guard for `upstream` (e.g. `platform`) of `tenantID`.
    public func guardFor(tenantID: String, upstream: String) -> UpstreamGuard {
        let key = tenantID + "|" + upstream
        return guards.withLock { guards in
            if let existing = guards[key] { return existing }
            let created = UpstreamGuard(
                breaker: CircuitBreaker(configuration: configuration.breaker),
                bulkhead: Bulkhead(limit: configuration.maxInFlight),
                retry: configuration.retry,
                budget: RetryBudget()
            )
            guards[key] = created
            return created
        }
    }
}
