/// Why an upstream call (mini-app platform, provisioning) did not produce an answer.
///
/// Upstream clients throw only this type (plus `CancellationError`); the server maps it
/// to a problem document with ``problem(upstream:notFoundCode:)``.
public enum UpstreamError: Error, Sendable, Equatable {
    /// The tenant has no base URL / project for this upstream.
    case notConfigured
    /// 404 from the upstream.
    case notFound
    /// 429 from the upstream; `retryAfter` is its `Retry-After`, never invented.
    case rateLimited(retryAfter: String?)
    /// Any other 4xx (credentials refused, bad request): not retried.
    case rejected(status: Int)
    /// 5xx after retries.
    case serverError(status: Int)
    /// The request's deadline passed.
    case timeout
    /// Connect/reset/TLS failure.
    case connection(String)
    /// A body the contract does not allow (invalid JSON, missing fields).
    case malformed(String)
    /// The circuit breaker for this tenant and upstream is open.
    case circuitOpen
    /// The bulkhead for this tenant and upstream is full.
    case overloaded
    /// A value meant for one path segment of an upstream URL is empty, `.` or `..`
    /// (see ``UpstreamPathSegment``); nothing was sent.
    case invalidPathSegment

    /// Connection errors and 5xx may be retried (GETs only); a 4xx never is.
    public var isRetryable: Bool {
        switch self {
        case .serverError, .connection: true
        default: false
        }
    }

    /// Whether the outcome counts against the upstream's health (circuit breaker).
    public var isUpstreamFailure: Bool {
        switch self {
        case .serverError, .connection, .timeout, .malformed: true
        default: false
        }
    }

    /// Whether a stale cached answer may stand in for this failure (stale-if-error).
    public var allowsStale: Bool {
        switch self {
        case .serverError, .connection, .timeout, .malformed, .circuitOpen, .overloaded: true
        default: false
        }
    }

    /// The problem document the client sees. `upstream` names the backend in the detail.
    public func problem(upstream: String, notFoundCode: String = "miniapp_not_found") -> GatewayProblem {
        switch self {
        case .notConfigured:
            GatewayProblem(status: 502, code: "upstream_not_configured", title: "Upstream not configured", detail: "This tenant has no \(upstream) configured.")
        case .notFound:
            GatewayProblem(status: 404, code: notFoundCode, title: "Not found", detail: "The \(upstream) does not know this item.")
        case .rateLimited(let retryAfter):
            GatewayProblem(
                status: 429, code: "upstream_rate_limited", title: "Too many requests",
                detail: "The \(upstream) is rate limiting this tenant.",
                headers: retryAfter.map { [(name: "Retry-After", value: $0)] } ?? []
            )
        case .rejected(let status):
            GatewayProblem(status: 502, code: "upstream_rejected", title: "Bad gateway", detail: "The \(upstream) refused the gateway's request (\(status)).")
        case .serverError(let status):
            GatewayProblem(status: 502, code: "upstream_unavailable", title: "Bad gateway", detail: "The \(upstream) answered \(status).")
        case .timeout:
            GatewayProblem(status: 504, code: "upstream_timeout", title: "Gateway timeout", detail: "The \(upstream) did not answer in time.")
        case .connection:
            GatewayProblem(status: 502, code: "upstream_unavailable", title: "Bad gateway", detail: "The \(upstream) could not be reached.")
        case .malformed:
            GatewayProblem(status: 502, code: "invalid_upstream_response", title: "Bad gateway", detail: "The \(upstream) sent a response the gateway cannot read.")
        case .circuitOpen:
            GatewayProblem(status: 503, code: "upstream_circuit_open", title: "Service unavailable", detail: "The \(upstream) is failing; calls are paused briefly.")
        case .overloaded:
            GatewayProblem(status: 503, code: "upstream_overloaded", title: "Service unavailable", detail: "Too many calls to the \(upstream) are in flight.")
        case .invalidPathSegment:
            .invalidRequest("An identifier sent to the \(upstream) may not be empty, '.' or '..'.")
        }
    }
}
