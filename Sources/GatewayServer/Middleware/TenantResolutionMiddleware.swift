import GatewayCore
import Hummingbird

/// Resolves `/t/{tenant}/...` against the in-memory tenant snapshot (no I/O): unknown →
/// 404 `tenant_not_found`, malformed id → 400 `invalid_tenant_id`, suspended → 403
/// `tenant_suspended`. The tenant then rides in the ``RequestScope``.
struct TenantResolutionMiddleware<Context: RequestContext>: RouterMiddleware {
    let directory: TenantDirectory

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let segment = Self.tenantSegment(of: request.uri.path) else {
            return try await next(request, context)
        }
        guard TenantID.isValid(segment) else {
            throw GatewayProblem(status: 400, code: "invalid_tenant_id", title: "Invalid tenant id", detail: "Tenant ids are 2-63 characters of a-z, 0-9 and '-', starting with a letter or digit.")
        }
        let id = String(segment)
        guard let tenant = directory.tenant(id) else { throw GatewayProblem.tenantNotFound(id) }
        guard tenant.status == TenantStatus.active else { throw GatewayProblem.tenantSuspended(id) }
        var scope = RequestScope.current ?? RequestScope(requestID: RequestIDMiddleware<Context>.generate(), logger: context.logger)
        scope.tenant = tenant
        return try await RequestScope.$current.withValue(scope) {
            try await next(request, context)
        }
    }

    /// The raw segment after `/t/`, or nil for paths outside tenants.
    static func tenantSegment(of path: String) -> Substring? {
        guard path.hasPrefix("/t/") else { return nil }
        let rest = path.dropFirst(3)
        return rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first
    }
}
