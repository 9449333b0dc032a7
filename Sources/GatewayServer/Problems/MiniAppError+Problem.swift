import GatewayCore

extension MiniAppError: ProblemConvertible {
    var problem: GatewayProblem {
        switch self {
        case .miniAppNotFound:
            GatewayProblem(
                status: 404, code: "miniapp_not_found", title: "Mini app not found",
                detail: "The mini-app platform does not know this mini app or version.")
        case .noPublishedVersion:
            GatewayProblem(
                status: 404, code: "no_published_version", title: "No published version",
                detail: "This mini app has no published version.")
        case .invalidSignature:
            GatewayProblem(
                status: 422, code: "invalid_signature", title: "Invalid signature",
                detail: "The bundle's signature is missing or does not verify, and this tenant requires verification.")
        case .publicKeyNotFound:
            GatewayProblem(
                status: 404, code: "public_key_not_found", title: "Not found",
                detail: "The mini-app platform does not know this signing key.")
        case .previewNotFound:
            GatewayProblem(
                status: 404, code: "preview_not_found", title: "Not found",
                detail: "The mini-app platform does not know this item.")
        case .versionWithdrawn(let version, let useInstead):
            GatewayProblem(
                status: 410, code: "version_withdrawn", title: "Version withdrawn",
                detail: useInstead.map { "Version \(version) was withdrawn; use version \($0) instead." }
                    ?? "Version \(version) was withdrawn and no version of this mini app is offered.",
                members: ["versionId": .string(version), "useInstead": useInstead.map(JSONValue.string) ?? .null])
        case .upstream(let error, let upstream):
            error.problem(upstream: upstream.rawValue)
        }
    }
}

extension UpstreamError {
    /// The problem document the client sees. `upstream` names the backend in the detail.
    func problem(upstream: String) -> GatewayProblem {
        switch self {
        case .notConfigured:
            GatewayProblem(
                status: 502, code: "upstream_not_configured", title: "Upstream not configured",
                detail: "This tenant has no \(upstream) configured.")
        case .notFound:
            GatewayProblem(
                status: 404, code: "miniapp_not_found", title: "Not found",
                detail: "The \(upstream) does not know this item.")
        case .rateLimited(let retryAfter):
            GatewayProblem(
                status: 429, code: "upstream_rate_limited", title: "Too many requests",
                detail: "The \(upstream) is rate limiting this tenant.",
                headers: retryAfter.map { [(name: "Retry-After", value: $0)] } ?? []
            )
        case .rejected(let status):
            GatewayProblem(
                status: 502, code: "upstream_rejected", title: "Bad gateway",
                detail: "The \(upstream) refused the gateway's request (\(status)).")
        case .serverError(let status):
            GatewayProblem(
                status: 502, code: "upstream_unavailable", title: "Bad gateway",
                detail: "The \(upstream) answered \(status).")
        case .timeout:
            GatewayProblem(
                status: 504, code: "upstream_timeout", title: "Gateway timeout",
                detail: "The \(upstream) did not answer in time.")
        case .connection:
            GatewayProblem(
                status: 502, code: "upstream_unavailable", title: "Bad gateway",
                detail: "The \(upstream) could not be reached.")
        case .malformed:
            GatewayProblem(
                status: 502, code: "invalid_upstream_response", title: "Bad gateway",
                detail: "The \(upstream) sent a response the gateway cannot read.")
        case .circuitOpen:
            GatewayProblem(
                status: 503, code: "upstream_circuit_open", title: "Service unavailable",
                detail: "The \(upstream) is failing; calls are paused briefly.")
        case .overloaded:
            GatewayProblem(
                status: 503, code: "upstream_overloaded", title: "Service unavailable",
                detail: "Too many calls to the \(upstream) are in flight.")
        case .invalidPathSegment:
            .invalidRequest("An identifier sent to the \(upstream) may not be empty, '.' or '..'.")
        }
    }
}
