import GatewayCore
import HTTPTypes

/// The admin contract's paths (generated from `OpenAPI/admin.yaml` at build time as
/// ``AdminContractPaths``), for what routing and the generated server do not answer: a
/// declared path asked with a method it does not declare is 405 with `Allow` (not 404), and
/// a query parameter the operation does not declare is 400 (not ignored).
enum AdminRoutes {
    /// The operations declared on the template `path` matches; nil when none matches it.
    static func operations(path: String) -> [(method: String, query: [String])]? {
        match(path)?.operations
    }

    /// The contract's template `path` matches (`/admin/v1/tenants/{tenant}/users/{username}`):
    /// a bounded label for metrics; nil when none matches.
    static func template(path: String) -> String? {
        match(path)?.template
    }

    private static func match(_ path: String) -> (template: String, operations: [(method: String, query: [String])])? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (template, operations) in AdminContractPaths.all {
            let parts = template.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == segments.count else { continue }
            let matches = zip(parts, segments).allSatisfy { part, segment in
                part.hasPrefix("{") && part.hasSuffix("}") ? !segment.isEmpty : part == segment
            }
            if matches { return (template, operations) }
        }
        return nil
    }

    /// Throws 405 `method_not_allowed` (with `Allow`) when `path` is declared but not for
    /// `method`, and 400 `invalid_request` for a query parameter the operation does not declare.
    static func check(_ method: HTTPRequest.Method, path: String, queryNames: [Substring]) throws {
        guard let operations = operations(path: path) else { return }
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
