import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing
import Yams

@testable import GatewayCore
@testable import GatewayServer

/// No identifier holds a control character (issue 62 §2): both edges refuse one in a path
/// before routing, the token endpoints treat a client id holding one as unknown, and random
/// input through every admin operation leaves every audit chain intact, on both engines.
@Suite("Control characters at the edges")
struct ControlCharacterTests {
    @Test("a path is read percent-decoded: C0, DEL and C1 refused, other text passes")
    func pathsAreReadDecoded() {
        for refused in ["/admin/v1/tenants/globex%00", "/t/acme%0a/v1/home", "/x/%7F", "/x/%C2%85", "/x/%1b[31m", "/x/\u{1}"] {
            #expect(PathControlCharacters.held(in: refused), "\(refused)")
        }
        for passed in ["/t/acme/v1/home", "/x/caf%C3%A9", "/x/%20", "/x/%2", "/x/%zz", "/x/100%", "/x/日本"] {
            #expect(!PathControlCharacters.held(in: passed), "\(passed)")
        }
    }

    @Test("every path parameter of both contracts has a pattern that excludes control characters")
    func everyPathParameterExcludesThem() throws {
        for file in ["OpenAPI/gateway.yaml", "OpenAPI/admin.yaml"] {
            let contract = try #require(try Yams.load(yaml: RepositoryFile.text(file)) as? [String: Any])
            let components = contract["components"] as? [String: Any] ?? [:]
            let parameters = components["parameters"] as? [String: Any] ?? [:]
            let schemas = components["schemas"] as? [String: Any] ?? [:]
            func resolve(_ object: [String: Any], in table: [String: Any]) -> [String: Any] {
                guard let ref = object["$ref"] as? String else { return object }
                return table[String(ref.split(separator: "/").last ?? "")] as? [String: Any] ?? [:]
            }
            var checked = 0
            for (path, item) in try #require(contract["paths"] as? [String: Any]) {
                let item = item as? [String: Any] ?? [:]
                let declared = (item["parameters"] as? [[String: Any]] ?? [])
                    + item.values.compactMap { ($0 as? [String: Any])?["parameters"] as? [[String: Any]] }.joined()
                for parameter in declared.map({ resolve($0, in: parameters) }) where parameter["in"] as? String == "path" {
                    let schema = resolve(parameter["schema"] as? [String: Any] ?? [:], in: schemas)
                    if schema["enum"] != nil { continue }
                    let pattern = try #require(schema["pattern"] as? String, "\(file) \(path) {\(parameter["name"] ?? "")}")
                    let regex = try NSRegularExpression(pattern: pattern)
                    for odd in ["ab\u{0}c", "ab\u{1B}c", "ab\u{85}c"] {
                        let range = NSRange(odd.startIndex..., in: odd)
                        #expect(regex.firstMatch(in: odd, range: range) == nil, "\(file) \(path): \(pattern)")
                    }
                    checked += 1
                }
            }
            #expect(checked > 20, "\(file)")
        }
    }

    @Test("the public edge answers 400 before routing, whatever the route", arguments: [
        "/t/demo%00/v1/home", "/t/demo/v1/miniapps/hello%00", "/t/demo/v1/me/sign-in-requests/x%0A/approve",
        "/t/demo/v1/miniapps/%C2%9B", "/nowhere/%00",
    ])
    func publicEdgeRefuses(path: String) async throws {
        try await GatewayHarness.withGateway(useRedis: false) { _, _, port in
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = path.hasSuffix("/approve") ? .POST : .GET
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(15))
            let body = try await response.body.collect(upTo: 1 << 16)
            let json = try JSONValue.decode(Data(buffer: body)).objectValue ?? [:]
            #expect(response.status == .badRequest && json["code"]?.stringValue == "invalid_request", "\(path) \(json)")
            #expect(response.headers.first(name: "Content-Type") == "application/problem+json")
        }
    }

    /// The finding: a viewer's `GET /admin/v1/tenants/globex%00` made `audit verify` report its own
    /// record as tampered, and `pa%00` authenticated as operator `pa`.
    @Test(arguments: DatabaseBackend.available)
    func adminRefusesThemAndTheTrailHolds(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let created = try await OperatorService(operators: admin.stores.operators).create(
                name: "pa", credential: .generatedSecret, actor: .local(user: "test"))
            let secret = try #require(created.secret)
            #expect(try await admin.token("pa", secret).status == 200)
            for path in ["/admin/v1/tenants/globex%00", "/admin/v1/tenants/acme%00", "/admin/v1/operators/pa%00"] {
                for name in ["acme-viewer", "root"] {
                    let refused = try await admin.call(.GET, path, token: admin.tokens[name])
                    #expect(refused.status == 400 && refused.json["code"] as? String == "invalid_request", "\(path) \(refused.json)")
                }
            }
            for clientID in ["pa%00", "pa%00x", "pa%0A"] {
                let token = try await admin.token(clientID, secret)
                #expect(token.status == 401 && token.json["error"] as? String == "invalid_client", "\(clientID) \(token.json)")
            }
            let basic = try await admin.token("pa\u{0}", secret, basic: true)
            #expect(basic.status == 401 && basic.json["error"] as? String == "invalid_client", "\(basic.json)")
            for chain in try await admin.stores.audit.chainNames() {
                let verification = try await AuditVerifier.verify(admin.stores.audit, chain: chain)
                #expect(verification.breaks.isEmpty, "\(chain): \(verification.breaks)")
            }
        }
    }

    /// A property test: random Unicode, control characters and over-long values in every path
    /// parameter, query parameter and body member of every admin operation, as a platform admin.
    /// No answer is a 5xx, and every audit chain still verifies.
    @Test(arguments: DatabaseBackend.available)
    func randomInputThroughEveryAdminOperation(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            var random = SeededRandom(seed: 62)
            var calls = 0
            for (template, operations) in AdminContractPaths.all
            where template.hasPrefix("/admin/v1") && !template.hasSuffix("/user-imports") {
                for operation in operations {
                    for _ in 0..<3 {
                        var path = template
                        while let open = path.firstIndex(of: "{"), let close = path[open...].firstIndex(of: "}") {
                            let value = random.oddText()
                            let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x"
                            path.replaceSubrange(open...close, with: encoded)
                        }
                        let query = operation.query.map { name in
                            "\(name)=\(random.oddText().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                        }
                        if !query.isEmpty { path += "?" + query.joined(separator: "&") }
                        let body: String? =
                            operation.method == "GET" || operation.method == "DELETE"
                            ? nil : random.oddJSONObject()
                        let reply = try await admin.call(
                            HTTPMethod(rawValue: operation.method), path, token: admin.tokens["root"], body: body,
                            contentType: operation.method == "PATCH" ? "application/merge-patch+json" : "application/json")
                        #expect(reply.status < 500, "\(operation.method) \(path): \(reply.status) \(reply.json)")
                        calls += 1
                    }
                }
            }
            #expect(calls > 100)
            for chain in try await admin.stores.audit.chainNames() {
                let verification = try await AuditVerifier.verify(admin.stores.audit, chain: chain)
                #expect(verification.breaks.isEmpty, "\(chain): \(verification.breaks)")
            }
        }
    }
}

/// Odd text from the suite's reproducible source (SplitMix64).
extension SeededRandom {
    /// Text mixing ASCII, control characters, other scripts, emoji and lone combining marks;
    /// now and then over-long (past every limit of the contract).
    mutating func oddText() -> String {
        let pieces: [String] = [
            "a", "Z", "0", "-", ".", "_", "\u{0}", "\u{1}", "\u{1B}[31m", "\n", "\r", "\t", "\u{7F}", "\u{85}", "\u{9F}",
            "é", "日本", "🙂", "\u{301}", "\u{200B}", "\u{FEFF}", "\u{FFFD}", "%", "/", "\\", "\"", "'", "<", "{",
        ]
        let length = Int.random(in: 0...12, using: &self) == 0 ? Int.random(in: 300...3_000, using: &self) : Int.random(in: 1...12, using: &self)
        return (0..<length).map { _ in pieces.randomElement(using: &self)! }.joined()
    }

    /// A JSON object whose members are the admin contract's common names, each with odd text.
    mutating func oddJSONObject() -> String {
        let names = [
            "id", "displayName", "name", "role", "tenant", "clientID", "host", "alias", "issuer", "audience", "username",
            "action", "version", "stable", "locale", "texts", "user", "miniApp", "redirectURIs", "password", "alg",
        ]
        var object: [String: Any] = [:]
        for _ in 0..<Int.random(in: 1...5, using: &self) {
            let name = names.randomElement(using: &self)!
            object[name] = Int.random(in: 0...4, using: &self) == 0 ? [oddText()] : oddText()
        }
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
