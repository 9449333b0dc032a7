import GatewayCore

extension OAuthError: ProblemConvertible {
    /// Off the OAuth endpoints (which answer it as RFC 6749 JSON, see ``OAuthErrorResponse``),
    /// its status with the RFC 6749 code as the problem's code.
    var problem: GatewayProblem {
        GatewayProblem(status: status, code: code, title: "OAuth error", detail: description)
    }
}
