/// The per-tenant send quota: at most `perMinute` messages queued per tenant per fixed minute,
/// counted on the shared cache (Redis `INCR` + TTL, so every replica sees one count; in-process
/// without Redis). A counter failure lets the message through (fail open), as request limits do.
public struct SendQuota: Sendable {
    /// The default quota (messages per tenant per minute).
    public static let defaultPerMinute = 600

    private let cache: any Cache
    private let perMinute: Int
    private let clock: WallClock

    /// - Parameter perMinute: 0 turns the quota off.
    public init(cache: any Cache, perMinute: Int, clock: WallClock = .system) {
        self.cache = cache
        self.perMinute = perMinute
        self.clock = clock
    }

    /// Counts one message of `tenantID`.
    /// - Throws: ``NotificationError/quotaExceeded(retryAfterSeconds:)`` over the quota.
    func admit(tenantID: String) async throws(NotificationError) {
        guard perMinute > 0 else { return }
        let (window, retryAfter) = RateLimiter.window(nowMilliseconds: clock.milliseconds(), length: .seconds(60))
        guard let count = try? await cache.increment("gw:pushq:\(tenantID):\(window)", by: 1, ttl: .seconds(61))
        else { return }
        if count > Int64(perMinute) { throw .quotaExceeded(retryAfterSeconds: retryAfter) }
    }
}
