import GatewayCore
import HTTPTypes

/// The admin contract's paths (generated from `OpenAPI/admin.yaml` at build time as
/// ``AdminContractPaths``), for what routing and the generated server do not answer: a
/// declared path asked with a method it does not declare is 405 with `Allow` (not 404), and
/// a query parameter the operation does not declare is 400 (not ignored).
enum AdminRoutes {
    /// A declared path: its template (`/admin/v1/tenants/{tenant}/users/{username}`, a bounded
    /// metrics label) and the operations declared on it.
    struct Route {
        let template: String
        let operations: [(method: String, query: [String])]
    }

    /// The contract's path `path` matches; nil when none does.
    static func match(_ path: String) -> Route? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (template, operations) in AdminContractPaths.all {
            let parts = template.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == segments.count else { continue }
            let matches = zip(parts, segments).allSatisfy { part, segment in
                part.hasPrefix("{") && part.hasSuffix("}") ? !segment.isEmpty : part == segment
            }
            if matches { return Route(template: template, operations: operations) }
        }
        return nil
    }

    /// Throws 405 `method_not_allowed` (with `Allow`) when `path` is declared but not for
    /// `method`, and 400 `invalid_request` for a query parameter the operation does not declare.
    static func check(_ method: HTTPRequest.Method, route: Route?, queryNames: [Substring]) throws {
        guard let operations = route?.operations else { return }
        guard let operation = operations.first(where: { $0.method == method.rawValue }) else {
            var problem = GatewayProblem.methodNotAllowed()
            problem.headers.append((name: "Allow", value: operations.map(\.method).joined(separator: ", ")))
            throw problem
        }
        if let unknown = queryNames.first(where: { !operation.query.contains(String($0)) }) {
            throw AdminError.badRequest("unknown query parameter \(unknown.prefix(40))")
        }
    }
}
