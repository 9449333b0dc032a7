import Foundation
import GatewayAPI
@testable import GatewayServer
import HTTPTypes
import Hummingbird
import OpenAPIRuntime
import NIOConcurrencyHelpers
import Testing

@Suite("The operation table is the contract's")
struct OperationTableTests {
    static let table = OperationTable()

    @Test(
        "every operation of OpenAPI/gateway.yaml is in the table with its method, template and security, and nothing else is"
    )
    func tableIsTheContract() throws {
        let document = try RepositoryFile.contract()
        let paths = try #require(document["paths"] as? [String: Any])
        var declared: [String: String] = [:]
        for (path, item) in paths {
            for (method, op) in (item as? [String: Any]) ?? [:] {
                guard let op = op as? [String: Any], let id = op["operationId"] as? String else { continue }
                declared[id] = "\(method.uppercased()) \(path)"
                let operation = try #require(ContractOperation.named(id), "\(id) is missing from the table")
                let schemes = Set(((op["security"] as? [[String: Any]]) ?? []).flatMap(\.keys))
                let expected: EdgeFacts.Security =
                    schemes.contains("rasClientKey")
                    ? .rasClientKey
                    : schemes.contains("sender") ? .sender : schemes.contains("bearer") ? .bearer : .anonymous
                #expect(operation.facts.security == expected, "\(id)")
                // Every operation under /t/{tenant}/v1 says who may call it.
                if path.hasPrefix("/t/{tenant}/v1/") { #expect(op["security"] != nil, "\(id) declares no security") }
            }
        }
        #expect(
            Dictionary(
                uniqueKeysWithValues: ContractOperation.all.map { ($0.id, "\($0.method.rawValue) \($0.template)") })
                == declared)
    }

    @Test("the table is what the generated server registers with the router")
    func tableIsTheRouters() async throws {
        let recorder = RegistrationRecorder()
        try await GatewayHarness.withGateway(useRedis: false) { harness, _, _ in
            let handler = GatewayAPIHandler(services: harness.bootstrap.services)
            try handler.registerHandlers(on: recorder, configuration: GatewayApplication.wireConfiguration)
        }
        #expect(
            Set(recorder.routes.withLockedValue { $0 })
                == Set(ContractOperation.all.map { "\($0.method.rawValue) \($0.template)" }))
    }

    @Test("the extensions the edge reads: stored answers, body kinds, error dialects")
    func extensions() throws {
        #expect(
            ContractOperation.all.filter { $0.storedAnswer != nil }.map(\.id).sorted() == [
                "getMiniApp", "getMiniAppBundle", "getMiniAppManifest",
            ])
        #expect(ContractOperation.named("getMiniAppManifest")?.storedAnswer == .manifest)
        #expect(ContractOperation.named("postAnalytics")?.facts.body == .analytics)
        #expect(ContractOperation.named("putMiniAppStorage")?.facts.body == .storage)
        #expect(ContractOperation.named("deleteMiniAppStorageItems")?.facts.body == .json)
        // Form bodies from the media type; the rest of /oauth2 from its prefix.
        #expect(
            ContractOperation.named("postToken")?.facts == EdgeFacts(security: .anonymous, errors: .oauth, body: .form))
        #expect(
            ContractOperation.named("getUserInfo")?.facts == EdgeFacts(security: .bearer, errors: .problem, body: .form)
        )
        #expect(
            ContractOperation.all.filter { $0.template.hasPrefix("/t/{tenant}/ras/") }.allSatisfy {
                $0.facts.errors == .ras && $0.facts.security == .rasClientKey
            })
        let oauth = ContractOperation.all.filter { $0.facts.errors == .oauth }.map(\.template)
        #expect(
            Set(oauth)
                == Set(
                    [
                        "token", "revoke", "introspect", "par", "authorize", "authorize-challenge", "logout",
                        "idp/callback", "bc-authorize",
                    ].map { "/t/{tenant}/oauth2/" + $0 }))
    }

    @Test("public paths stay public for one segment only; the /v1 space needs a token by default")
    func security() {
        func security(_ path: String, _ method: HTTPRequest.Method = .get) -> EdgeFacts.Security {
            Self.table.match(method: method, path: path).facts.security
        }
        #expect(security("/t/demo/v1/localizations/ja-JP") == .anonymous)
        #expect(security("/t/demo/v1/links/resolve") == .anonymous)
        #expect(security("/t/demo/v1/host-config", .delete) == .anonymous)  // reaches routing: 405, not 401
        #expect(security("/t/demo/v1/localizations/ja/extra") == .bearer)
        #expect(security("/t/demo/v1/localizations/") == .bearer)
        #expect(security("/t/demo/v1/me/miniapps") == .bearer)
        #expect(security("/t/demo/v1/host-config/") == .bearer)
        #expect(security("/t/demo/v1") == .bearer)
        #expect(security("/t/demo/v1/nowhere") == .bearer)
        #expect(security("/t/demo/oauth2/userinfo") == .bearer)
        #expect(security("/t/demo/oauth2/token", .post) == .anonymous)
        #expect(security("/t/demo/v10/me") == .anonymous)
        #expect(security("/healthz") == .anonymous)
        #expect(security("/t/demo") == .anonymous)
        #expect(security("/t/demo/ras/anything") == .rasClientKey)
    }

    @Test("operations, parameters and the tenant segment")
    func matching() throws {
        let manifest = Self.table.match(method: .get, path: "/t/acme/v1/miniapps/app%201/versions/v2/manifest")
        #expect(manifest.operation?.id == "getMiniAppManifest")
        #expect(manifest.tenant == "acme")
        #expect(manifest.parameter("id") == "app%201")
        #expect(manifest.parameter("versionId") == "v2")
        // A literal wins over a parameter at the same position.
        #expect(
            Self.table.match(method: .delete, path: "/t/acme/v1/me/miniapps/x/storage/all").operation?.id
                == "deleteAllMiniAppStorage")
        #expect(
            Self.table.match(method: .get, path: "/t/acme/v1/me/miniapps/x/storage/some-key").operation?.id
                == "getMiniAppStorageItem")
        #expect(Self.table.match(method: .get, path: "/.well-known/oauth-authorization-server/t/acme").tenant == "acme")
        // Unknown paths still name their tenant (an unknown tenant answers 404 before the path).
        #expect(Self.table.match(method: .get, path: "/t/acme/nowhere").tenant == "acme")
        #expect(Self.table.match(method: .get, path: "/t/").tenant == "")
        #expect(Self.table.match(method: .get, path: "/healthz").tenant == nil)
        #expect(Self.table.match(method: .get, path: "").operation == nil)
        #expect(Self.table.match(method: .get, path: "/t/acme/v1/miniapps//versions/v/manifest").operation == nil)
    }

    @Test("a method a path does not serve: no operation, the path's methods, its facts")
    func otherMethods() throws {
        let token = Self.table.match(method: .get, path: "/t/acme/oauth2/token")
        #expect(token.operation == nil)
        #expect(token.path?.allowedMethods == [.post])
        #expect(token.facts.errors == .oauth)
        let storage = Self.table.match(method: .post, path: "/t/acme/v1/me/miniapps/x/storage")
        #expect(Set(try #require(storage.path).allowedMethods) == [.put, .delete])
        #expect(storage.facts.security == .bearer)
        #expect(Self.table.match(method: .post, path: "/t/acme/v1/host-config").path?.allowedMethods == [.get, .head])
        // An unknown OAuth path is not an OAuth endpoint: a problem document, with the form limit.
        #expect(
            Self.table.match(method: .post, path: "/t/acme/oauth2/nowhere").facts
                == EdgeFacts(security: .anonymous, errors: .problem, body: .form))
    }
}

/// A `ServerTransport` that only records what the generated server registers.
final class RegistrationRecorder: ServerTransport, Sendable {
    let routes = NIOLockedValueBox<[String]>([])

    func register(
        _ handler:
            @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (
                HTTPResponse, HTTPBody?
            ),
        method: HTTPRequest.Method,
        path: String
    ) throws {
        routes.withLockedValue { $0.append("\(method.rawValue) \(path)") }
    }
}
