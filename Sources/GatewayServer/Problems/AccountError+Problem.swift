import GatewayCore

extension AccountError: ProblemConvertible {
    /// My account's refusals: 404 `account_not_found`, `session_not_found`, `passkey_not_found`;
    /// 422 `invalid_account_change`, `invalid_code`, `invalid_password`; 409 `identifier_taken`,
    /// `identifier_required`, `channel_unavailable`, `last_factor`; 403 `reauthentication_required`; 429
    /// `account_throttled` with `Retry-After`.
    var problem: GatewayProblem {
        switch self {
        case .notFound:
            GatewayProblem(
                status: 404, code: "account_not_found", title: "Account not found",
                detail: "the token's user has no account in this tenant any more")
        case .passkeyNotFound:
            GatewayProblem(
                status: 404, code: "passkey_not_found", title: "Passkey not found",
                detail: "the account holds no passkey with this id")
        case .lastFactor:
            GatewayProblem(
                status: 409, code: "last_factor", title: "Last way in",
                detail: "the account would keep no way to sign in: add a password or another passkey first")
        case .sessionNotFound:
            GatewayProblem(
                status: 404, code: "session_not_found", title: "Session not found",
                detail: "no live session of this user has this id")
        case .invalid(let reason):
            GatewayProblem(status: 422, code: "invalid_account_change", title: "Invalid change", detail: reason)
        case .wrongCode(let triesLeft):
            GatewayProblem(
                status: 422, code: "invalid_code", title: "Wrong code",
                detail: triesLeft > 0
                    ? "the code is wrong; \(triesLeft) more tries" : "no live code: ask for a new one",
                members: ["triesLeft": .number(Double(triesLeft))])
        case .wrongPassword:
            GatewayProblem(
                status: 422, code: "invalid_password", title: "Wrong password", detail: "the current password is wrong")
        case .identifierTaken:
            GatewayProblem(
                status: 409, code: "identifier_taken", title: "Held by another account",
                detail: "another account holds this identifier")
        case .identifierRequired:
            GatewayProblem(
                status: 409, code: "identifier_required", title: "Last way in",
                detail: "the account would keep no identifier this tenant signs people in with")
        case .channelUnavailable:
            GatewayProblem(
                status: 409, code: "channel_unavailable", title: "Nothing sent",
                detail: "this tenant sends no codes on this channel, or not to this number's country")
        case .reauthenticationRequired:
            GatewayProblem(
                status: 403, code: "reauthentication_required", title: "Sign in again",
                detail: "send the current password, or sign in again (a sign-in of the last 5 minutes)")
        case .throttled(let retryAfter):
            GatewayProblem(
                status: 429, code: "account_throttled", title: "Too many attempts",
                detail: "too many codes or attempts; retry after the time in Retry-After",
                headers: [(name: "Retry-After", value: String(BrowserSignIn.wholeSeconds(retryAfter)))])
        }
    }
}
