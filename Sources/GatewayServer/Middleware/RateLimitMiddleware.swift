import GatewayCore
import HTTPTypes
import Hummingbird

/// Applies ``RateLimiter`` to tenant routes (after tenant resolution): per tenant, and
/// per client id when one is known: the verified token's `client_id`, else `X-Client-Id`.
/// Over the limit → 429 `rate_limited` with `Retry-After`.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let limiter: RateLimiter

    static let clientIDHeader = HTTPField.Name("X-Client-Id")!

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard limiter.isEnabled, let tenant = context.scope.tenant else {
            return try await next(request, context)
        }
        let clientID = context.scope.principal?.clientID
            ?? request.headers.value(of: Self.clientIDHeader).map { String($0.prefix(128)) }
        if case .limited(let seconds) = await limiter.check(tenantID: tenant.id, clientID: clientID) {
            throw GatewayProblem.rateLimited(retryAfterSeconds: seconds)
        }
        return try await next(request, context)
    }
}
