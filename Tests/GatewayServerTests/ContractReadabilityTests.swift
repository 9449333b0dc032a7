import Foundation
import Testing
import Yams

/// Issue 14, item 5 (in part): the contract explains itself to integrators.
@Suite("The contract is readable")
struct ContractReadabilityTests {
    @Test("every operation has a summary and a description of at least a sentence")
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
            }
        }
        #expect(operations >= 39)
    }
}
