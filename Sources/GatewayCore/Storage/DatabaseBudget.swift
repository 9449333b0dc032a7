/// How long the current request may still wait for the database, all statements together.
/// The HTTP layer sets it per request (`database.timeout.ms`); the PostgreSQL stores bound each
/// statement by what is left of it, so a request that gives up on one statement does not
/// wait the whole time again on the next (found by `make chaos`, PostgreSQL paused). Work
/// outside a request (background loops, `gatewayctl`) has none.
public enum DatabaseBudget {
    /// When the current request's database time runs out (nil: no request budget).
    @TaskLocal public static var deadline: ContinuousClock.Instant?

    /// Set while the ``TenantDirectory`` refreshes: stores that keep a connection outside their
    /// pool read on it, so the first refresh after a partition heals is not held by pool
    /// connections whose packets still sit in TCP's retransmission backoff (found by
    /// `make chaos`, partition-pg: the release table, which follows the directory, held a
    /// healed replica's changes 1.4 s). Stores without one ignore it.
    @TaskLocal public static var outsideThePool = false

    /// The time left of the request's budget, capped at `limit` (nil: no limit at all).
    public static func remaining(capping limit: Duration?) -> Duration? {
        guard let deadline else { return limit }
        let left = deadline - ContinuousClock.now
        guard let limit else { return left }
        return min(limit, left)
    }
}
