import GatewayCore
import HTTPTypes

/// A refusal the gateway answers with an RFC 9457 problem document.
///
/// `code` is stable and machine-readable (clients switch on it); `title` is a short
/// human summary of the kind; `detail` explains this occurrence and never contains
/// secrets or internals.
public struct GatewayProblem: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var title: String
    public var detail: String?
    /// Extra response headers (e.g. `Retry-After`, `WWW-Authenticate`).
    public var headers: [(name: String, value: String)]
    /// Extension members of the problem document (RFC 9457 §3.2), e.g. `errorType` and
    /// `message` of a refused mini-app access token; never overrides the standard members.
    public var members: [String: JSONValue]

    public init(
        status: Int, code: String, title: String, detail: String? = nil, headers: [(name: String, value: String)] = [],
        members: [String: JSONValue] = [:]
    ) {
        self.members = members
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.headers = headers
    }

    /// The response fields of any rendering of this problem: `contentType`, `no-store`, and
    /// the problem's own headers (`Retry-After`, `WWW-Authenticate`, …).
    func responseFields(contentType: String) -> HTTPFields {
        var fields: HTTPFields = [.contentType: contentType, .cacheControl: "no-store"]
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields[name] = header.value }
        }
        return fields
    }

    public static func == (lhs: GatewayProblem, rhs: GatewayProblem) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.title == rhs.title && lhs.detail == rhs.detail
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
            && lhs.members == rhs.members
    }
}

extension GatewayProblem {
    public static func tenantNotFound(_ id: String) -> GatewayProblem {
        GatewayProblem(
            status: 404, code: "tenant_not_found", title: "Tenant not found",
            detail: "No tenant is registered under this id.")
    }

    public static func tenantSuspended(_ id: String) -> GatewayProblem {
        GatewayProblem(
            status: 403, code: "tenant_suspended", title: "Tenant suspended",
            detail: "This tenant is suspended; its routes are not served.")
    }

    /// A tenant path segment that cannot be a tenant id (400).
    public static func invalidTenantID() -> GatewayProblem {
        GatewayProblem(
            status: 400, code: "invalid_tenant_id", title: "Invalid tenant id",
            detail: "Tenant ids are 2-63 characters of a-z, 0-9 and '-', starting with a letter or digit.")
    }

    /// Over the tenant's or client's request rate (429).
    public static func rateLimited(retryAfterSeconds: Int) -> GatewayProblem {
        GatewayProblem(
            status: 429, code: "rate_limited", title: "Too many requests",
            detail: "This tenant or client sent too many requests; retry later.",
            headers: [(name: "Retry-After", value: String(retryAfterSeconds))]
        )
    }

    public static func invalidRequest(_ detail: String) -> GatewayProblem {
        GatewayProblem(status: 400, code: "invalid_request", title: "Invalid request", detail: detail)
    }

    /// The request could not be decoded into its operation's input (e.g. a form pair without `=`).
    public static func unparsableRequest() -> GatewayProblem {
        invalidRequest("The request's parameters could not be parsed.")
    }

    public static func notFound() -> GatewayProblem {
        GatewayProblem(status: 404, code: "not_found", title: "Not found", detail: "No route matches this path.")
    }

    public static func methodNotAllowed() -> GatewayProblem {
        GatewayProblem(status: 405, code: "method_not_allowed", title: "Method not allowed")
    }

    /// A request body over the route's limit (413).
    public static func payloadTooLarge(maximum: Int) -> GatewayProblem {
        GatewayProblem(
            status: 413, code: "payload_too_large", title: "Payload too large",
            detail: "The request body is larger than this operation accepts (\(maximum) bytes).",
            headers: [(name: "Connection", value: "close")])
    }

    /// One client address has as many requests in flight as it may (429, retry after a second).
    public static func tooManyRequestsInFlight() -> GatewayProblem {
        GatewayProblem(
            status: 429, code: "too_many_requests_in_flight", title: "Too many requests in flight",
            detail:
                "This client address has as many requests in flight as the gateway allows; retry when one has finished.",
            headers: [(name: "Retry-After", value: "1")])
    }

    /// The shared cache is out of reach for a moment (503, retry after a second).
    public static func cacheUnavailable() -> GatewayProblem {
        GatewayProblem(
            status: 503, code: "cache_unavailable", title: "Temporarily unavailable",
            detail: "The gateway's shared cache is unreachable for a moment; retry shortly.",
            headers: [(name: "Retry-After", value: "1")])
    }

    /// The tenant database is out of reach for a moment (503, retry after a second).
    public static func databaseUnavailable() -> GatewayProblem {
        GatewayProblem(
            status: 503, code: "database_unavailable", title: "Temporarily unavailable",
            detail: "The gateway's database is unreachable for a moment; retry shortly.",
            headers: [(name: "Retry-After", value: "1")])
    }

    /// No tenant domain is registered for the request's host (AASA).
    public static func unknownHost() -> GatewayProblem {
        GatewayProblem(
            status: 404, code: "unknown_host", title: "Unknown host",
            detail: "No tenant domain is registered for this host.")
    }

    /// The RAS-compatible API's `apiKey` is missing or not a client key of the tenant (401).
    public static func invalidClientKey() -> GatewayProblem {
        GatewayProblem(
            status: 401, code: "invalid_client_key", title: "Unauthorized",
            detail: "apiKey is not a client key of this tenant")
    }

    /// The RAS project id in the path is not the tenant's (404).
    public static func unknownProject() -> GatewayProblem {
        GatewayProblem(status: 404, code: "not_found", title: "Not found", detail: "This tenant has no such project.")
    }

    public static func internalError() -> GatewayProblem {
        GatewayProblem(
            status: 500, code: "internal_error", title: "Internal error",
            detail: "The gateway failed to answer; the request id identifies it in the logs.")
    }
}
