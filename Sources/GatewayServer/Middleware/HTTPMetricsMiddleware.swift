import GatewayCore
import Hummingbird

/// Records request count and latency by route template (never the raw path, so tenant
/// ids and other parameters do not explode label cardinality) and status; and a count per
/// tenant and status class, for tenants that exist (an unknown id in a path adds no series).
/// With the access log on, also one `notice` line per request: method, route template (never
/// the raw path, which may carry codes), status, milliseconds and the resolved `client`.
struct HTTPMetricsMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let metrics: GatewayMetrics
    let directory: TenantDirectory
    var accessLog = false

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 500
            record(request, context, status: status, since: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let route = context.endpointPath ?? "unmatched"
        let duration = ContinuousClock.now - start
        metrics.recordRequest(route: route, method: request.method.rawValue, status: status, duration: duration)
        if accessLog {
            context.scope.logger.notice(
                "request",
                metadata: [
                    "method": .string(request.method.rawValue), "route": .string(route),
                    "status": .stringConvertible(status),
                    "ms": .stringConvertible(Double(duration.nanoseconds / 10_000) / 100),
                    "client": .string(context.scope.clientAddress ?? "-"),
                ])
        }
        if let segment = context.scope.route.tenant, let tenant = directory.tenant(String(segment)) {
            metrics.recordTenantRequest(tenant: tenant.id, status: status, duration: duration)
        }
    }
}
