import Foundation
import Yams

/// Reads `OpenAPI/gateway.yaml` and writes the gateway's operation table as Swift: every
/// operation's id, method, path template and edge facts (security, error dialect, body
/// limit, stored answer), and the path prefixes' facts. Run by `OperationTablePlugin` at
/// build time; an unknown `x-gateway-*` value stops the build.
///
/// Usage: OperationTableGenerator CONTRACT OUTPUT
@main
enum OperationTableGenerator {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            throw GeneratorError("usage: OperationTableGenerator CONTRACT OUTPUT")
        }
        let text = try String(contentsOfFile: arguments[1], encoding: .utf8)
        let document = try ContractDocument(yaml: text)
        let swift = try document.renderedTable()
        // Rewrite only on change, so an unchanged contract does not rebuild GatewayServer.
        if (try? String(contentsOfFile: arguments[2], encoding: .utf8)) != swift {
            try swift.write(toFile: arguments[2], atomically: true, encoding: .utf8)
        }
    }
}

struct GeneratorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "gateway.yaml: " + description }
}

/// The parts of the contract the table is made of.
struct ContractDocument {
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
    static let errors = ["problem", "oauth", "ras"]
    static let bodies = ["json", "form", "analytics", "storage", "contacts"]
    static let storedAnswers = ["miniApp", "manifest", "bundle"]
    static let securities = ["none", "bearer", "rasClientKey", "sender"]

    struct Prefix {
        let path: String
        let security: String?
        let errors: String?
        let body: String?
    }

    struct Operation {
        let id: String
        let method: String
        let path: String
        let security: String
        let errors: String
        let body: String
        let storedAnswer: String?
    }

    let prefixes: [Prefix]
    let operations: [Operation]

    init(yaml: String) throws {
        guard let root = try Yams.load(yaml: yaml) as? [String: Any] else { throw GeneratorError("not a mapping") }
        let components = root["components"] as? [String: Any] ?? [:]
        prefixes = try (root["x-gateway-prefixes"] as? [[String: Any]] ?? []).map { entry in
            guard let path = entry["path"] as? String else {
                throw GeneratorError("x-gateway-prefixes: an entry without `path`")
            }
            return Prefix(
                path: path,
                security: try Self.value(
                    entry["security"], of: Self.securities, at: "x-gateway-prefixes \(path) security"),
                errors: try Self.value(entry["errors"], of: Self.errors, at: "x-gateway-prefixes \(path) errors"),
                body: try Self.value(entry["body"], of: Self.bodies, at: "x-gateway-prefixes \(path) body")
            )
        }
        guard let paths = root["paths"] as? [String: Any] else { throw GeneratorError("no paths") }
        var operations: [Operation] = []
        for path in paths.keys.sorted() {
            let item = paths[path] as? [String: Any] ?? [:]
            let prefix = Self.longestPrefix(of: path, in: prefixes)
            for method in Self.methods {
                guard let operation = item[method] as? [String: Any] else { continue }
                let at = "\(method.uppercased()) \(path)"
                guard let id = operation["operationId"] as? String else {
                    throw GeneratorError("\(at) has no operationId")
                }
                let security = try Self.security(operation["security"] ?? root["security"], at: at)
                let errors = try Self.value(
                    operation["x-gateway-errors"], of: Self.errors, at: "\(at) x-gateway-errors")
                let body = try Self.value(operation["x-gateway-body"], of: Self.bodies, at: "\(at) x-gateway-body")
                let stored = try Self.value(
                    operation["x-gateway-stored-answer"], of: Self.storedAnswers, at: "\(at) x-gateway-stored-answer")
                let isForm = Self.mediaTypes(of: operation["requestBody"], components: components).contains(
                    "application/x-www-form-urlencoded")
                operations.append(
                    Operation(
                        id: id, method: method, path: path, security: security,
                        errors: errors ?? prefix?.errors ?? "problem",
                        body: body ?? (isForm ? "form" : nil) ?? prefix?.body ?? "json",
                        storedAnswer: stored
                    ))
            }
        }
        self.operations = operations
    }

    /// An extension's value, checked against the values the gateway knows.
    static func value(_ raw: Any?, of allowed: [String], at place: String) throws -> String? {
        guard let raw else { return nil }
        guard let value = raw as? String, allowed.contains(value) else {
            throw GeneratorError("\(place): \(raw) is not one of \(allowed.joined(separator: ", "))")
        }
        return value
    }

    /// What the edge checks before the handler: a bearer token, the RAS client key, or nothing.
    static func security(_ raw: Any?, at place: String) throws -> String {
        let requirements = raw as? [[String: Any]] ?? []
        let schemes = Set(requirements.flatMap(\.keys))
        if schemes.contains("rasClientKey") { return "rasClientKey" }
        if schemes.contains("sender") { return "sender" }
        if schemes.contains("bearer") || schemes.contains("dpop") { return "bearer" }
        guard schemes.isEmpty else { throw GeneratorError("\(place): unknown security schemes \(schemes.sorted())") }
        return "none"
    }

    static func mediaTypes(of requestBody: Any?, components: [String: Any]) -> [String] {
        var body = requestBody as? [String: Any] ?? [:]
        if let ref = body["$ref"] as? String, ref.hasPrefix("#/components/requestBodies/") {
            let name = String(ref.dropFirst("#/components/requestBodies/".count))
            body = (components["requestBodies"] as? [String: Any])?[name] as? [String: Any] ?? [:]
        }
        return Array((body["content"] as? [String: Any] ?? [:]).keys)
    }

    static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }

    static func longestPrefix(of path: String, in prefixes: [Prefix]) -> Prefix? {
        let segments = segments(path)
        return prefixes
            .filter { segments.starts(with: Self.segments($0.path)) }
            .max { Self.segments($0.path).count < Self.segments($1.path).count }
    }

    func renderedTable() throws -> String {
        var ids: Set<String> = []
        for operation in operations where !ids.insert(operation.id).inserted {
            throw GeneratorError("operationId \(operation.id) is declared twice")
        }
        var lines = [
            "// Generated at build time from OpenAPI/gateway.yaml by OperationTableGenerator. Do not edit.",
            "import HTTPTypes",
            "",
            "extension ContractOperation {",
            "    /// Every operation of the contract, by path then method.",
            "    static let all: [ContractOperation] = [",
        ]
        for operation in operations {
            let stored = operation.storedAnswer.map { ".\($0)" } ?? "nil"
            let security = Self.swiftSecurity(operation.security)
            lines.append(
                "        ContractOperation(id: \(Self.literal(operation.id)), method: .\(operation.method), template: \(Self.literal(operation.path)), "
                    + "facts: EdgeFacts(security: .\(security), errors: .\(operation.errors), body: .\(operation.body)), storedAnswer: \(stored)),"
            )
        }
        lines += [
            "    ]", "}", "", "extension EdgeFacts {",
            "    /// The facts of paths no operation declares, by path prefix (`x-gateway-prefixes`).",
            "    static let prefixes: [(template: String, facts: EdgeFacts)] = [",
        ]
        for prefix in prefixes {
            lines.append(
                "        (\(Self.literal(prefix.path)), EdgeFacts(security: .\(Self.swiftSecurity(prefix.security ?? "none")), errors: .\(prefix.errors ?? "problem"), body: .\(prefix.body ?? "json"))),"
            )
        }
        lines += ["    ]", "}", ""]
        return lines.joined(separator: "\n")
    }

    /// `none` is spelled `anonymous` in Swift (`.none` reads as an optional's).
    static func swiftSecurity(_ security: String) -> String {
        security == "none" ? "anonymous" : security
    }

    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
