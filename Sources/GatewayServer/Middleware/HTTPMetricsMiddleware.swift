import GatewayCore
import Hummingbird

/// Records request count and latency by route template (never the raw path, so tenant
/// ids and other parameters do not explode label cardinality) and status; and a count per
/// tenant and status class, for tenants that exist (an unknown id in a path adds no series).
struct HTTPMetricsMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let metrics: GatewayMetrics
    let directory: TenantDirectory

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
        metrics.recordRequest(route: route, method: request.method.rawValue, status: status, duration: ContinuousClock.now - start)
        if let segment = TenantResolutionMiddleware.tenantSegment(of: request.uri.path), let tenant = directory.tenant(String(segment)) {
            metrics.recordTenantRequest(tenant: tenant.id, status: status)
        }
    }
}
