import GatewayCore

extension TokenRejection: ProblemConvertible {
    /// 401 with the RFC 6750 / RFC 9449 `WWW-Authenticate` challenge: `unauthorized` (no
    /// token), `invalid_dpop_proof` or `invalid_token`. (A `use_dpop_nonce` answer also
    /// needs the tenant's current nonce, which ``BearerAuthMiddleware`` adds.) A token without
    /// the operation's scope: 403 `insufficient_scope`, the scope in the challenge and in the
    /// document's `scope` member.
    var problem: GatewayProblem {
        let challenge: String
        switch self {
        case .insufficientScope(let scope, let dpop):
            return GatewayProblem(
                status: 403, code: "insufficient_scope", title: "Insufficient scope", detail: detail,
                headers: [
                    (name: "WWW-Authenticate", value: (dpop ? "DPoP" : "Bearer") + #" error="insufficient_scope", scope=""# + scope + "\"")
                ],
                members: ["scope": .string(scope)])
        case .missing:
            challenge = #"Bearer realm="gateway", DPoP algs="ES256""#
        case .invalidToken(let detail):
            challenge =
                #"Bearer error="invalid_token", error_description=""# + detail.replacingOccurrences(of: "\"", with: "'")
                + #"", DPoP algs="ES256""#
        case .invalidDPoPProof(let detail):
            challenge =
                #"DPoP error="invalid_dpop_proof", error_description=""#
                + detail.replacingOccurrences(of: "\"", with: "'") + #"", algs="ES256""#
        case .dpopNonceRequired:
            challenge =
                #"DPoP error="use_dpop_nonce", error_description="the DPoP proof must carry the server's nonce (DPoP-Nonce header)", algs="ES256""#
        }
        let code =
            self == .missing ? "unauthorized" : (detail.contains("DPoP") ? "invalid_dpop_proof" : "invalid_token")
        return GatewayProblem(
            status: 401, code: code, title: "Unauthorized", detail: detail,
            headers: [(name: "WWW-Authenticate", value: challenge)])
    }
}
