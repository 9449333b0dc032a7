/// Fixed-window request limits on shared counters (Redis `INCR` + TTL; the in-process
/// cache without Redis). A counter failure lets the request through (fail open): rate
/// limiting must never turn a cache outage into an outage of the gateway.
public struct RateLimiter: Sendable {
    /// Requests allowed per window for each key kind; 0 = unlimited.
    public struct Limits: Sendable, Equatable {
        public var perTenant: Int
        public var perClient: Int
        public var window: Duration

        public init(perTenant: Int = 0, perClient: Int = 0, window: Duration = .seconds(60)) {
            self.perTenant = perTenant
            self.perClient = perClient
            self.window = window
        }
    }

    /// The outcome of one check.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Refused; retry after this many whole seconds (the end of the window).
        case limited(retryAfterSeconds: Int)
    }

    private let cache: any Cache
    private let limits: Limits
    private let clock: WallClock

    /// - Parameter clock: windows are fixed slices of this clock's time (shared by replicas).
    public init(cache: any Cache, limits: Limits, clock: WallClock = .system) {
        self.cache = cache
        self.limits = limits
        self.clock = clock
    }

    public var isEnabled: Bool { limits.perTenant > 0 || limits.perClient > 0 }

    /// The fixed window `nowMilliseconds` falls in (its index since 1970) and the whole seconds,
    /// at least 1, until it ends (a `Retry-After`). Shared by every fixed-window counter.
    public static func window(
        nowMilliseconds: Int64, length: Duration
    ) -> (index: Int64, retryAfterSeconds: Int) {
        let windowMS = max(1, length.wholeMilliseconds)
        return (nowMilliseconds / windowMS, max(1, Int((windowMS - nowMilliseconds % windowMS + 999) / 1000)))
    }

    /// Counts one request of `tenantID` (and `clientID` when known) in the current window.
    public func check(tenantID: String, clientID: String?) async -> Decision {
        let (window, retryAfter) = Self.window(nowMilliseconds: clock.milliseconds(), length: limits.window)
        var checks: [(String, Int)] = []
        if limits.perTenant > 0 { checks.append(("gw:rl:t:\(tenantID):\(window)", limits.perTenant)) }
        if limits.perClient > 0, let clientID {
            checks.append(("gw:rl:c:\(tenantID):\(CacheKey.escape(clientID)):\(window)", limits.perClient))
        }
        for (key, limit) in checks {
            guard let count = try? await cache.increment(key, by: 1, ttl: limits.window + .seconds(1)) else { continue }
            if count > Int64(limit) { return .limited(retryAfterSeconds: retryAfter) }
        }
        return .allowed
    }
}
