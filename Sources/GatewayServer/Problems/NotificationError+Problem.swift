import GatewayCore

extension NotificationError: ProblemConvertible {
    /// 422 `invalid_notification`, 403 `sender_not_allowed`, 409 `idempotency_conflict`,
    /// 404 `notification_not_found`, 429 `send_quota_exceeded` (with `Retry-After`).
    var problem: GatewayProblem {
        switch self {
        case .invalid:
            GatewayProblem(status: 422, code: "invalid_notification", title: "Invalid notification", detail: description)
        case .notAllowed:
            GatewayProblem(status: 403, code: "sender_not_allowed", title: "Sender not allowed", detail: description)
        case .idempotencyConflict:
            GatewayProblem(status: 409, code: "idempotency_conflict", title: "Idempotency conflict", detail: description)
        case .notFound:
            GatewayProblem(
                status: 404, code: "notification_not_found", title: "Notification not found", detail: description)
        case .quotaExceeded(let seconds):
            GatewayProblem(
                status: 429, code: "send_quota_exceeded", title: "Send quota exceeded", detail: description,
                headers: [(name: "Retry-After", value: String(seconds))])
        }
    }
}
