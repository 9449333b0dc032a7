import GatewayCore

extension AnalyticsBatchError: ProblemConvertible {
    /// 422 `too_many_events`.
    var problem: GatewayProblem {
        GatewayProblem(status: 422, code: "too_many_events", title: "Too many events", detail: description)
    }
}
