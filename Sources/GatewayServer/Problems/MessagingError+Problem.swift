import GatewayCore

extension MessagingError: ProblemConvertible {
    /// 422 `invalid_contacts`, `too_many_contacts`, `invalid_message`, `invalid_block`;
    /// 403 `consent_required`; 429 `message_rate_limited` (with `Retry-After`); 404
    /// `message_not_found`, `block_not_found`; 409 `idempotency_conflict`.
    var problem: GatewayProblem {
        switch self {
        case .invalidContacts:
            GatewayProblem(status: 422, code: "invalid_contacts", title: "Invalid contacts", detail: description)
        case .tooManyContacts:
            GatewayProblem(status: 422, code: "too_many_contacts", title: "Too many contacts", detail: description)
        case .invalidMessage:
            GatewayProblem(status: 422, code: "invalid_message", title: "Invalid message", detail: description)
        case .invalidBlock:
            GatewayProblem(status: 422, code: "invalid_block", title: "Invalid block", detail: description)
        case .consentRequired:
            GatewayProblem(status: 403, code: "consent_required", title: "Consent required", detail: description)
        case .rateLimited(let seconds, _):
            GatewayProblem(
                status: 429, code: "message_rate_limited", title: "Too many messages", detail: description,
                headers: [(name: "Retry-After", value: String(seconds))])
        case .messageNotFound:
            GatewayProblem(status: 404, code: "message_not_found", title: "Message not found", detail: description)
        case .blockNotFound:
            GatewayProblem(status: 404, code: "block_not_found", title: "Block not found", detail: description)
        case .idempotencyConflict:
            GatewayProblem(status: 409, code: "idempotency_conflict", title: "Idempotency conflict", detail: description)
        }
    }
}
