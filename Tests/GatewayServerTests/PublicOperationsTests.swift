import Foundation
@testable import GatewayServer
import Testing

@Suite("Public operations match the contract")
struct PublicOperationsTests {
    @Test("operations under /t/{tenant}/v1 declaring security: [] are exactly PublicOperations.list; the others declare a scheme")
    func publicListMatchesContract() throws {
        let document = try RepositoryFile.contract()
        let paths = try #require(document["paths"] as? [String: Any])
        var declaredPublic: Set<String> = []
        var declaredProtected: Set<String> = []
        for (path, item) in paths where path.hasPrefix("/t/{tenant}/v1/") {
            for (method, op) in (item as? [String: Any]) ?? [:] {
                guard let op = op as? [String: Any], let security = op["security"] as? [Any] else {
                    Issue.record("\(method.uppercased()) \(path) declares no security")
                    continue
                }
                let key = "\(method.uppercased()) \(path)"
                if security.isEmpty { declaredPublic.insert(key) } else { declaredProtected.insert(key) }
            }
        }
        #expect(declaredPublic == Set(PublicOperations.list.map { "\($0.method) \($0.path)" }))
        for op in declaredProtected {
            let parts = op.split(separator: " ")
            #expect(PublicOperations.requiresToken(method: String(parts[0]), path: String(parts[1]).replacingOccurrences(of: "{tenant}", with: "demo")))
        }
        #expect(!declaredProtected.isEmpty)
    }

    @Test("templated public paths match one segment only")
    func templatedPublicPaths() {
        #expect(!PublicOperations.requiresToken(method: "GET", path: "/t/demo/v1/localizations/ja-JP"))
        #expect(!PublicOperations.requiresToken(method: "GET", path: "/t/demo/v1/links/resolve"))
        #expect(PublicOperations.requiresToken(method: "GET", path: "/t/demo/v1/localizations/ja/extra"))
        #expect(PublicOperations.requiresToken(method: "GET", path: "/t/demo/v1/localizations/"))
        #expect(PublicOperations.requiresToken(method: "GET", path: "/t/demo/v1/me/miniapps"))
        #expect(PublicOperations.requiresToken(method: "GET", path: "/t/demo/v1/host-config/"))
        #expect(PublicOperations.requiresToken(method: "GET", path: "/t/demo/v1"))
        #expect(PublicOperations.requiresToken(method: "GET", path: "/t/demo/oauth2/userinfo"))
        #expect(!PublicOperations.requiresToken(method: "POST", path: "/t/demo/oauth2/token"))
        #expect(!PublicOperations.requiresToken(method: "GET", path: "/t/demo/v10/me"))
        #expect(!PublicOperations.requiresToken(method: "GET", path: "/healthz"))
        #expect(!PublicOperations.requiresToken(method: "GET", path: "/t/demo"))
    }
}
