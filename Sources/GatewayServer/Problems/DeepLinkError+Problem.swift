import GatewayCore

extension DeepLinkError: ProblemConvertible {
    /// 422 `invalid_deep_link`, whatever the reason (named in the detail).
    var problem: GatewayProblem {
        GatewayProblem(
            status: 422, code: "invalid_deep_link", title: "Not a deep link of this tenant", detail: description)
    }
}
