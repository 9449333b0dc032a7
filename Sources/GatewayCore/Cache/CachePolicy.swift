/// How long one kind of answer is fresh, then servable stale while revalidating, then
/// servable stale only when the upstream fails; and how long a 404/422 is remembered.
public struct CachePolicy: Sendable, Equatable {
    public var fresh: Duration
    public var staleWhileRevalidate: Duration
    public var staleIfError: Duration
    public var negative: Duration

    public init(
        fresh: Duration, staleWhileRevalidate: Duration, staleIfError: Duration, negative: Duration = .seconds(10)
    ) {
        self.fresh = fresh
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
        self.negative = negative
    }

    /// The default shape for a TTL in seconds: SWR = TTL, stale-if-error = max(10 × TTL, 1 h).
    public static func ttl(seconds: Int, negative: Duration = .seconds(10)) -> CachePolicy {
        let fresh = Duration.seconds(max(0, seconds))
        return CachePolicy(
            fresh: fresh, staleWhileRevalidate: fresh, staleIfError: max(fresh * 10, .seconds(3600)), negative: negative
        )
    }
}
