import GatewayCore
import Hummingbird

/// Resolves `/t/{tenant}/...` against the in-memory tenant snapshot (no I/O): unknown →
/// 404 `tenant_not_found`, malformed id → 400 `invalid_tenant_id`, suspended → 403
/// `tenant_suspended`. The tenant then rides in the ``RequestScope``.
struct TenantResolutionMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let directory: TenantDirectory

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let segment = Self.tenantSegment(of: context.scope.path) else {
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

    /// The raw segment after `/t/`, or nil for paths outside tenants. RFC 8414's metadata path
    /// `/.well-known/oauth-authorization-server/t/{tenant}` names a tenant too.
    static func tenantSegment(of path: String) -> Substring? {
        let rest: Substring
        if path.hasPrefix("/t/") {
            rest = path.dropFirst(3)
        } else if path.hasPrefix(metadataPrefix) {
            rest = path.dropFirst(metadataPrefix.count)
        } else {
            return nil
        }
        return rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first
    }

    /// RFC 8414 §3.1: the well-known segment goes before the issuer's path `/t/{tenant}`.
    static let metadataPrefix = "/.well-known/oauth-authorization-server/t/"
}
