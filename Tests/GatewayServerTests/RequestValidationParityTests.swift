import Foundation
import GatewayCore
@testable import GatewayServer
import Testing

/// Issue 15, item 5: the hand-written input checks agree with the patterns and lengths
/// `OpenAPI/gateway.yaml` declares, on a corpus of edge cases, and the stored-answer fast
/// path serves exactly the contract's routes, so neither side can drift alone.
@Suite("Hand-written lists match the contract")
struct RequestValidationParityTests {
    static var document: [String: Any] { (try? RepositoryFile.contract()) ?? [:] }

    /// The schema of a component parameter or schema, or of one operation's parameter.
    static func schema(
        component: String? = nil, schema name: String? = nil, operation: String? = nil, parameter: String? = nil
    ) -> [String: Any] {
        let components = document["components"] as? [String: Any] ?? [:]
        if let component {
            return ((components["parameters"] as? [String: Any])?[component] as? [String: Any])?["schema"]
                as? [String: Any] ?? [:]
        }
        if let name { return (components["schemas"] as? [String: Any])?[name] as? [String: Any] ?? [:] }
        for item in (document["paths"] as? [String: Any] ?? [:]).values {
            for op in (item as? [String: Any] ?? [:]).values {
                guard let op = op as? [String: Any], op["operationId"] as? String == operation else { continue }
                for p in op["parameters"] as? [[String: Any]] ?? [] where p["name"] as? String == parameter {
                    return p["schema"] as? [String: Any] ?? [:]
                }
            }
        }
        return [:]
    }

    /// What the contract accepts: the whole value matches `pattern`, within `maxLength` code points.
    static func contractAccepts(_ schema: [String: Any], _ value: String) -> Bool {
        guard let pattern = schema["pattern"] as? String else { return false }
        if let max = schema["maxLength"] as? Int, value.unicodeScalars.count > max { return false }
        if let min = schema["minLength"] as? Int, value.unicodeScalars.count < min { return false }
        return RequestValidation.matches(pattern, value)
    }

    static let corpus: [String] = {
        var values = [
            "", "a", "A", "0", ".", "..", "...", "a.", ".a", "a..b", "-", "_", "a-b", "a_b", "a:b", "a/b", "a b",
            "a%2F", "é", "日本",
            "hello", "demo-hello", "en", "ja", "ja-JP", "zh-Hant-TW", "e", "english", "en-", "en_US", "x-1", "1.0",
            "1.2.3", "1.2.3.4",
            "1.2.3.4.5", "1234567.1", "01", "1..2", "1.", ".1", "acme", "ac", "a-", "-a", "Acme", "ab_c",
            "35.68,139.76", "90,180",
            "-90.5,0", "91,0", "0,181", "1.123456789,0", "abc\n", "a\u{0}b", "tab\tkey",
            "key.with:colons-and_underscores",
        ]
        for n in [62, 63, 64, 65, 127, 128, 129, 255, 256, 257] {
            values.append(String(repeating: "a", count: n))
            values.append(String(repeating: ".", count: n - 1) + "a")
        }
        return values
    }()

    static func accepts(_ check: (String) throws -> Void, _ value: String) -> Bool {
        (try? check(value)) != nil
    }

    @Test(
        "mini-app and version ids, permission names, preview codes, languages, host-app versions, storage keys, tenant ids, near"
    )
    func parity() throws {
        let cases: [(String, [String: Any], (String) throws -> Void)] = [
            ("MiniAppId", Self.schema(component: "MiniAppId"), { try RequestValidation.identifier($0, "id") }),
            ("VersionId", Self.schema(component: "VersionId"), { try RequestValidation.identifier($0, "versionId") }),
            ("PermissionName", Self.schema(schema: "PermissionName"), { try RequestValidation.permissionName($0) }),
            (
                "getPreview code", Self.schema(operation: "getPreview", parameter: "code"),
                { try RequestValidation.previewCode($0) }
            ),
            ("Lang", Self.schema(component: "Lang"), { try RequestValidation.language($0) }),
            (
                "getMiniAppManifest lang", Self.schema(operation: "getMiniAppManifest", parameter: "lang"),
                { try RequestValidation.language($0) }
            ),
            ("HostAppVersion", Self.schema(schema: "HostAppVersion"), { _ = try RequestValidation.hostAppVersion($0) }),
            (
                "getHostConfig hostAppVersion", Self.schema(operation: "getHostConfig", parameter: "hostAppVersion"),
                { _ = try RequestValidation.hostAppVersion($0) }
            ),
            ("StorageKey", Self.schema(schema: "StorageKey"), { try GatewayAPIHandler.storageKey($0) }),
            (
                "TenantId", Self.schema(component: "TenantId"),
                { guard TenantID.isValid(Substring($0)) else { throw GatewayProblem.invalidTenantID() } }
            ),
            (
                "listMiniApps near", Self.schema(operation: "listMiniApps", parameter: "near"),
                { _ = try RequestValidation.location(near: $0, radius: nil) }
            ),
        ]
        for (name, schema, check) in cases {
            #expect(schema["pattern"] is String, "\(name): the contract declares no pattern")
            for value in Self.corpus {
                #expect(
                    Self.contractAccepts(schema, value) == Self.accepts(check, value),
                    "\(name): contract \(Self.contractAccepts(schema, value) ? "accepts" : "refuses") \(value.debugDescription), the gateway does not agree"
                )
            }
        }
        #expect(
            RequestValidation.nearPattern == Self.schema(operation: "listMiniApps", parameter: "near")["pattern"]
                as? String)
    }
}
