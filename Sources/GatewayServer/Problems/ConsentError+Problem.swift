import GatewayCore

extension ConsentError: ProblemConvertible {
    /// 422 `invalid_permissions` listing both kinds of refused names; 404 `miniapp_not_used`.
    var problem: GatewayProblem {
        switch self {
        case .invalidPermissions(let unknown, let undeclared):
            GatewayProblem(
                status: 422, code: "invalid_permissions", title: "Invalid permissions", detail: description,
                members: [
                    "unknownPermissions": .array(unknown.map(JSONValue.string)),
                    "undeclaredPermissions": .array(undeclared.map(JSONValue.string)),
                ]
            )
        case .notUsed:
            GatewayProblem(status: 404, code: "miniapp_not_used", title: "Mini app not used", detail: description)
        }
    }
}
