import Metrics
import Synchronization

/// The ``UpstreamGuard`` of each tenant × upstream, created on first use.
public final class UpstreamGuards: Sendable {
    /// Parameters every new guard gets.
    public struct Configuration: Sendable, Equatable {
        public var breaker: CircuitBreaker.Configuration
        public var maxInFlight: Int
        public var retry: RetryPolicy

        public init(
            breaker: CircuitBreaker.Configuration = .init(), maxInFlight: Int = 256, retry: RetryPolicy = .init()
        ) {
            self.breaker = breaker
            self.maxInFlight = maxInFlight
            self.retry = retry
        }
    }

    private let configuration: Configuration
    private let guards = Mutex<[String: UpstreamGuard]>([:])
    private let factory: any MetricsFactory

    /// - Parameter factory: where breaker metrics go: `gateway_upstream_breaker_transitions_total`
    ///   and the `gateway_upstream_breaker_open` gauge (1 open, 0.5 half-open, 0 closed), by
    ///   tenant and upstream.
    public init(
        configuration: Configuration = Configuration(), factory: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        self.configuration = configuration
        self.factory = factory
    }

    /// The guard for `upstream` (e.g. `platform`) of `tenantID`.
    public func guardFor(tenantID: String, upstream: String) -> UpstreamGuard {
        let key = tenantID + "|" + upstream
        return guards.withLock { guards in
            if let existing = guards[key] { return existing }
            let dimensions = [("tenant", tenantID), ("upstream", upstream)]
            let gauge = Gauge(label: "gateway_upstream_breaker_open", dimensions: dimensions, factory: factory)
            let factory = self.factory
            let breaker = CircuitBreaker(configuration: configuration.breaker) { phase in
                let name =
                    switch phase {
                    case .open: "open"
                    case .halfOpen: "half_open"
                    case .closed: "closed"
                    }
                Counter(
                    label: "gateway_upstream_breaker_transitions_total", dimensions: dimensions + [("to", name)],
                    factory: factory
                ).increment()
                gauge.record(phase == .open ? 1 : phase == .halfOpen ? 0.5 : 0)
            }
            let created = UpstreamGuard(
                breaker: breaker,
                bulkhead: Bulkhead(limit: configuration.maxInFlight),
                retry: configuration.retry,
                budget: RetryBudget()
            )
            guards[key] = created
            return created
        }
    }
}
