import GatewayCore

extension AccessTokenDenied: ProblemConvertible {
    /// 403 `access_token_denied` with the SDK's `errorType` and `message` members.
    var problem: GatewayProblem {
        GatewayProblem(
            status: 403, code: "access_token_denied", title: "Access token denied", detail: message,
            members: ["errorType": .string(type.rawValue), "message": .string(message)]
        )
    }
}
