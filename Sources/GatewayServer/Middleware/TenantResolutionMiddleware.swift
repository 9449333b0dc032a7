import GatewayCore
import Hummingbird

/// Resolves the `{tenant}` of the request's path (``RouteMatch/tenant``: `/t/{tenant}/...`, and
/// RFC 8414's `/.well-known/oauth-authorization-server/t/{tenant}`) against the in-memory tenant snapshot (no I/O): unknown →
/// 404 `tenant_not_found`, malformed id → 400 `invalid_tenant_id`, suspended → 403
/// `tenant_suspended`. The tenant then rides in the ``RequestScope``.
struct TenantResolutionMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let directory: TenantDirectory

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let segment = context.scope.route.tenant else {
            return try await next(request, context)
        }
        // Only valid ids are ever stored, so a hit needs no grammar check.
        guard let tenant = directory.tenant(String(segment)) else {
            guard TenantID.isValid(segment) else {
                throw GatewayProblem.invalidTenantID()
            }
            throw GatewayProblem.tenantNotFound(String(segment))
        }
        guard tenant.status == TenantStatus.active else { throw GatewayProblem.tenantSuspended(tenant.id) }
        var context = context
        context.scope.tenant = tenant
        return try await next(request, context)
    }
}
