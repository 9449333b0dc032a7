import GatewayCore

/// A domain error the HTTP layer answers with a problem document. GatewayCore throws typed
/// errors that know nothing of HTTP; each conformance in this folder says which status,
/// code and members a case becomes, so the whole error-to-HTTP table reads in one place.
/// ``ProblemMiddleware`` applies it to anything a handler or middleware throws (on the
/// OAuth endpoints, ``OAuthErrorResponse`` renders the same problem as RFC 6749 JSON).
protocol ProblemConvertible: Error {
    /// The problem document this error is answered with.
    var problem: GatewayProblem { get }
}

extension GatewayProblem: ProblemConvertible {
    /// A refusal decided at the edge (tenant, rate limit, body limit, request validation).
    var problem: GatewayProblem { self }
}
