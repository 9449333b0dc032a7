import GatewayCore

extension FederationError: ProblemConvertible {
    /// On the API (a trusted issuer's token): the issuer's keys could not be fetched is a 503
    /// worth retrying; a refused token is 401 like any other. The sign-in callback maps these
    /// to RFC 6749 errors itself (``FederatedSignIn``).
    var problem: GatewayProblem {
        switch self {
        case .providerUnavailable:
            GatewayProblem(
                status: 503, code: "identity_provider_unavailable", title: "Service unavailable",
                detail: "The issuer of this token cannot be reached to check it; try again shortly.",
                headers: [(name: "Retry-After", value: "5")])
        case .tokenRejected, .userDisabled, .invalidState:
            TokenRejection.invalidToken(description).problem
        case .providerMisconfigured, .providerRefused, .unknownProvider:
            GatewayProblem(
                status: 502, code: "identity_provider_misconfigured", title: "Bad gateway",
                detail: "The issuer of this token is not set up correctly.")
        }
    }
}
