import GatewayCore

extension BackchannelError: ProblemConvertible {
    /// 404 `sign_in_request_not_found`, 409 `sign_in_request_answered`, 403 `step_up_required`
    /// and `step_up_failed`.
    var problem: GatewayProblem {
        switch self {
        case .notFound:
            GatewayProblem(
                status: 404, code: "sign_in_request_not_found", title: "Sign-in request not found", detail: description)
        case .alreadyAnswered:
            GatewayProblem(
                status: 409, code: "sign_in_request_answered", title: "Sign-in request answered", detail: description)
        case .stepUpRequired:
            GatewayProblem(status: 403, code: "step_up_required", title: "Step-up required", detail: description)
        case .stepUpFailed, .passkeyCounterWentBack:
            GatewayProblem(status: 403, code: "step_up_failed", title: "Step-up failed", detail: description)
        }
    }
}
