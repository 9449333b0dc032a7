import HTTPTypes

/// The contract's operations as a trie of path segments, built once at start from the
/// generated ``ContractOperation/all`` and ``EdgeFacts/prefixes``. Every edge step asks it
/// (through the request's ``RouteMatch``) instead of parsing paths of its own: which
/// operation a request is, its tenant and parameters, and which facts apply.
///
/// Like the router, a literal segment wins over a `{parameter}` at the same position
/// (`storage/all` is not also `storage/{key}`); a parameter matches one non-empty segment.
struct OperationTable: Sendable {
    /// One path template and the operations declared on it.
    final class PathEntry: Sendable {
        let template: String
        /// The names of the template's `{parameters}`, in order.
        let parameterNames: [String]
        /// The position of `{tenant}` among them.
        let tenantIndex: Int?
        let operations: [ContractOperation]
        /// Facts for a method the path does not serve: routing answers `405` after the edge,
        /// and the edge protects and bounds it like the path's operations.
        let facts: EdgeFacts
        /// The `Allow` of a `405`: the declared methods, and HEAD beside GET.
        let allowedMethods: [HTTPRequest.Method]

        init(template: String, operations: [ContractOperation]) {
            self.template = template
            self.operations = operations
            parameterNames = OperationTable.segments(of: template).compactMap(OperationTable.parameterName)
            tenantIndex = parameterNames.firstIndex(of: "tenant")
            let all = operations.map(\.facts)
            let security: EdgeFacts.Security = all.contains { $0.security == .bearer } ? .bearer
                : all.contains { $0.security == .rasClientKey } ? .rasClientKey : .anonymous
            let body: EdgeFacts.BodyKind = Set(all.map(\.body)).count == 1 ? all[0].body : .json
            facts = EdgeFacts(security: security, errors: all[0].errors, body: body)
            var methods = operations.map(\.method)
            if methods.contains(.get), !methods.contains(.head) { methods.append(.head) }
            allowedMethods = methods
        }
    }

    private struct Node: Sendable {
        var literals: [(segment: [UInt8], child: Int)] = []
        var parameter: (name: String, child: Int)?
        var path: PathEntry?
        /// Set where a declared prefix ends.
        var prefixFacts: EdgeFacts?
    }

    private var nodes = [Node()]

    /// - Precondition: ids, and (method, template) pairs, are unique (the generator checks ids;
    ///   the contract's structure makes the pairs unique).
    init(
        operations: [ContractOperation] = ContractOperation.all,
        prefixes: [(template: String, facts: EdgeFacts)] = EdgeFacts.prefixes
    ) {
        let byTemplate = Dictionary(grouping: operations, by: \.template)
        for (template, declared) in byTemplate {
            let node = insert(template)
            nodes[node].path = PathEntry(template: template, operations: declared)
        }
        for prefix in prefixes {
            nodes[insert(prefix.template)].prefixFacts = prefix.facts
        }
    }

    /// The match for a request: the operation when one is declared for `method` and `path`.
    func match(method: HTTPRequest.Method, path: String) -> RouteMatch {
        let segments = path.utf8.split(separator: Self.slash, omittingEmptySubsequences: false)
        guard segments.count > 1, segments[0].isEmpty else { return .unlisted }
        let rest = segments.dropFirst()
        var parameters: [Substring] = []
        if let entry = walk(0, rest, &parameters) {
            let operation = entry.operations.first { $0.method == method }
            let tenant = entry.tenantIndex.map { parameters[$0] }
            return RouteMatch(
                operation: operation, path: entry, facts: operation?.facts ?? entry.facts, tenant: tenant,
                parameters: parameters)
        }
        return prefixMatch(rest)
    }

    /// Depth first, literals before the parameter, backing out of dead ends.
    private func walk(
        _ index: Int, _ segments: ArraySlice<Substring.UTF8View>, _ parameters: inout [Substring]
    ) -> PathEntry? {
        // Read in place: a copy of the node would retain each of its arrays per level.
        guard let segment = segments.first else { return nodes[index].path }
        for literal in nodes[index].literals where segment.elementsEqual(literal.segment) {
            if let entry = walk(literal.child, segments.dropFirst(), &parameters) { return entry }
        }
        if let parameter = nodes[index].parameter, !segment.isEmpty {
            parameters.append(Substring(segment))
            if let entry = walk(parameter.child, segments.dropFirst(), &parameters) { return entry }
            parameters.removeLast()
        }
        return nil
    }

    /// A path no template matches: the facts of the longest declared prefix on the way, and
    /// the tenant segment if the way passed one (even empty: `/t/` names an invalid tenant).
    private func prefixMatch(_ segments: ArraySlice<Substring.UTF8View>) -> RouteMatch {
        var match = RouteMatch.unlisted
        var index = 0
        for segment in segments {
            if let literal = nodes[index].literals.first(where: { segment.elementsEqual($0.segment) }) {
                index = literal.child
            } else if let parameter = nodes[index].parameter {
                if parameter.name == "tenant" { match.tenant = Substring(segment) }
                index = parameter.child
            } else {
                break
            }
            if let facts = nodes[index].prefixFacts { match.facts = facts }
        }
        return match
    }

    /// The node at the end of `template`, created on the way.
    private mutating func insert(_ template: String) -> Int {
        var index = 0
        for segment in Self.segments(of: template) {
            if let name = Self.parameterName(segment) {
                if let parameter = nodes[index].parameter {
                    index = parameter.child
                } else {
                    nodes.append(Node())
                    nodes[index].parameter = (name, nodes.count - 1)
                    index = nodes.count - 1
                }
            } else if let literal = nodes[index].literals.first(where: { $0.segment.elementsEqual(segment.utf8) }) {
                index = literal.child
            } else {
                nodes.append(Node())
                nodes[index].literals.append((Array(segment.utf8), nodes.count - 1))
                index = nodes.count - 1
            }
        }
        return index
    }

    static let slash = UInt8(ascii: "/")

    static func segments(of template: String) -> [Substring] {
        Array(template.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }

    /// `name` for a `{name}` segment.
    static func parameterName(_ segment: Substring) -> String? {
        segment.hasPrefix("{") && segment.hasSuffix("}") ? String(segment.dropFirst().dropLast()) : nil
    }
}
