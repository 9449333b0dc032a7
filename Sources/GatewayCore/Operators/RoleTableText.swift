/// ``OperatorRole/permissions`` written out for people: `gatewayctl operator roles` and the
/// table in docs/operators.md (a test keeps the doc equal to ``markdown()``).
public enum RoleTableText {
    /// What `role` may do to `resource`: `all`, `read, act`, or `-`.
    static func cell(_ role: OperatorRole, _ resource: AdminResource) -> String {
        let verbs = AdminVerb.allCases.filter { role.permissions.contains(AdminPermission($0, resource)) }
        if verbs.count == AdminVerb.allCases.count { return "all" }
        return verbs.isEmpty ? "-" : verbs.map(\.rawValue).joined(separator: ", ")
    }

    /// One row per resource, one column per role, then what each role is for.
    public static func markdown() -> String {
        let roles = OperatorRole.allCases
        var lines = ["| resource | " + roles.map { "`\($0.rawValue)`" }.joined(separator: " | ") + " |"]
        lines.append("|---|" + roles.map { _ in "---|" }.joined())
        for resource in AdminResource.allCases {
            lines.append("| `\(resource.rawValue)` | " + roles.map { cell($0, resource) }.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines += roles.map { "- `\($0.rawValue)`: \($0.summary)." }
        return lines.joined(separator: "\n")
    }

    /// The same as plain text columns.
    public static func plain() -> String {
        let roles = OperatorRole.allCases
        let header = ["RESOURCE"] + roles.map(\.rawValue)
        let rows = AdminResource.allCases.map { resource in [resource.rawValue] + roles.map { cell($0, resource) } }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let table = ([header] + rows).map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }.joined()
        }
        return (table + [""] + roles.map { "\($0.rawValue): \($0.summary)" }).joined(separator: "\n")
    }
}
