import GatewayCore
import Hummingbird

/// Gives each request its database budget (``DatabaseBudget``): all its PostgreSQL statements
/// together wait at most `budget`, then it answers 503 `database_unavailable`.
struct DatabaseBudgetMiddleware<Context: RequestContext>: RouterMiddleware {
    let budget: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        try await DatabaseBudget.$deadline.withValue(ContinuousClock.now + budget) {
            try await next(request, context)
        }
    }
}
