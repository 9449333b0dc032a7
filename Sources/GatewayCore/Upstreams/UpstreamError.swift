/// Why an upstream call (mini-app platform, provisioning) did not produce an answer.
///
/// Upstream clients throw only this type (plus `CancellationError`); services wrap it in
/// their own errors (``MiniAppError/upstream(_:_:)``), which the server maps to problems.
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
}
