/// What ``OperationTable`` found for one request: its operation when the method and path
/// match one, the facts the edge applies, and the raw path parameters.
struct RouteMatch: Sendable {
    /// The declared operation; nil for an unknown path or a method its path does not serve.
    var operation: ContractOperation?
    /// The path template matched under any method (for `405` and its `Allow`).
    var path: OperationTable.PathEntry?
    /// The operation's facts; else the path's; else its prefix's.
    var facts: EdgeFacts
    /// The raw `{tenant}` segment (also of unknown paths under `/t/`).
    var tenant: Substring?
    /// The raw (not percent-decoded) path parameters of ``path``, in template order.
    var parameters: [Substring]

    /// A request no template or prefix knows.
    static let unlisted = RouteMatch(operation: nil, path: nil, facts: .unlisted, tenant: nil, parameters: [])

    /// The raw value of path parameter `name` (`id` for `{id}`).
    func parameter(_ name: String) -> Substring? {
        guard let index = path?.parameterNames.firstIndex(of: name), index < parameters.count else { return nil }
        return parameters[index]
    }
}
