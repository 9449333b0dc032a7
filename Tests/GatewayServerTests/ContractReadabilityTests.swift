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
}
