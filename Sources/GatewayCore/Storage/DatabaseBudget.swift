/// How long the current request may still wait for the database, all statements together.
/// The HTTP layer sets it per request (`database.timeout.ms`); the PostgreSQL stores bound each
/// statement by what is left of it, so a request that gives up on one statement does not
/// wait the whole time again on the next (found by `make chaos`, PostgreSQL paused). Work
/// outside a request (background loops, `gatewayctl`) has none.
public enum DatabaseBudget {
    /// When the current request's database time runs out (nil: no request budget).
    @TaskLocal public static var deadline: ContinuousClock.Instant?

    /// The time left of the request's budget, capped at `limit` (nil: no limit at all).
    public static func remaining(capping limit: Duration?) -> Duration? {
        guard let deadline else { return limit }
        let left = deadline - ContinuousClock.now
        guard let limit else { return left }
        return min(limit, left)
    }
}
