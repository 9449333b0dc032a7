import Foundation
import Testing
import Yams

/// Issue 14, item 5 (in part): the contract explains itself to integrators.
@Suite("The contract is readable")
struct ContractReadabilityTests {
    @Test("every operation has a summary and a description of at least a sentence; every success body has an example")
    func everyOperationDescribed() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("OpenAPI/gateway.yaml")
        let document = try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        var operations = 0
        for (path, item) in paths {
            for (method, op) in (item as? [String: Any]) ?? [:] where ["get", "post", "put", "delete", "patch"].contains(method) {
                let op = try #require(op as? [String: Any])
                operations += 1
                let summary = (op["summary"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                let description = (op["description"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                #expect(!summary.isEmpty, "\(method.uppercased()) \(path) has no summary")
                #expect(description.count >= 40, "\(method.uppercased()) \(path) has no description")
                for (status, response) in (op["responses"] as? [String: Any]) ?? [:] where status.hasPrefix("2") {
                    for (type, content) in ((response as? [String: Any])?["content"] as? [String: Any]) ?? [:] {
                        let media = (content as? [String: Any]) ?? [:]
                        #expect(media["example"] != nil || media["examples"] != nil, "\(method.uppercased()) \(path) \(status) \(type) has no example")
                    }
                }
            }
        }
        #expect(operations >= 39)
    }

    @Test("every problem code the sources can raise is documented in Problem.code")
    func problemCodesDocumented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try #require(try Yams.load(yaml: String(contentsOf: root.appendingPathComponent("OpenAPI/gateway.yaml"), encoding: .utf8)) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let problem = try #require((schemas["Problem"] as? [String: Any])?["properties"] as? [String: Any])
        let documented = try #require((problem["code"] as? [String: Any])?["description"] as? String)
        // `code: "…"` / `code = … "…"` / `notFoundCode: "…"` literals in the two modules that raise problems.
        let pattern = try NSRegularExpression(pattern: #"[cC]ode(: | = )[^"\n]{0,40}"([a-z]+(_[a-z]+)*)""#)
        var codes: Set<String> = []
        for module in ["Sources/GatewayCore", "Sources/GatewayServer"] {
            let files = FileManager.default.enumerator(at: root.appendingPathComponent(module), includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 2), in: text) { codes.insert(String(text[range])) }
                }
            }
        }
        #expect(codes.count >= 25)
        for code in codes.sorted() {
            #expect(documented.contains("`\(code)`"), "problem code \(code) is not documented in Problem.code")
        }
    }
}
