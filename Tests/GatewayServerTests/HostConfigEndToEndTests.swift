import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Host config end to end (generated client, real sockets)")
struct HostConfigEndToEndTests {
    static let secretMarker = "K1-e2e-subscription-key-8d1f"

    @Test("demo tenant is seeded and served with an ETag; If-None-Match gives 304")
    func demoTenant() async throws {
        try await GatewayHarness.withGateway { _, client, _ in
            let output = try await client.getHostConfig(path: .init(tenant: "demo"))
            let ok = try output.ok
            let body = try ok.body.json
            #expect(body.tenant == "demo")
            #expect(body.displayName == DemoTenant.displayName)
            #expect(body.storageMaxSizeInBytes == Tenant.defaultStorageMaxSizeInBytes)
            #expect(body.cacheRules.maxCount == 0)
            let again = try await client.getHostConfig(
                path: .init(tenant: "demo"), headers: .init(ifNoneMatch: ok.headers.eTag))
            #expect(try again.notModified.headers.eTag == ok.headers.eTag)
        }
    }

    @Test(
        "a tenant created and changed by an operator store is served within 2 s, without restart",
        arguments: DatabaseBackend.available)
    func liveConfig(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, _ in
            let store = harness.operatorStore()
            try await store.create(
                Tenant(
                    id: "acme",
                    displayName: "Acme",
                    platform: PlatformSettings(
                        baseURL: "http://127.0.0.1:9", projectID: "P1", subscriptionKey: SecretValue(Self.secretMarker),
                        requireSignatureVerification: true),
                    cacheRules: ClientCacheRules(maxCount: 5, maxDays: 30)
                ),
                actor: "test"
            )
            let appeared = try await eventually {
                if case .ok = try await client.getHostConfig(path: .init(tenant: "acme")) { return true }
                return false
            }
            #expect(appeared)
            let body = try await client.getHostConfig(path: .init(tenant: "acme")).ok.body.json
            #expect(body.requireSignatureVerification)
            #expect(body.cacheRules.maxCount == 5)
            #expect(body.cacheRules.maxDays == 30)

            try await store.update(id: "acme", actor: "test") { $0.theme.primaryColor = "#123456" }
            let changed = try await eventually {
                try await client.getHostConfig(path: .init(tenant: "acme")).ok.body.json.theme.primaryColor == "#123456"
            }
            #expect(changed)
            let latest = try await client.getHostConfig(path: .init(tenant: "acme")).ok.body.json
            #expect(latest.configVersion == body.configVersion + 1)

            try await store.update(id: "acme", actor: "test") { $0.status = .suspended }
            let suspended = try await eventually {
                if case .forbidden = try await client.getHostConfig(path: .init(tenant: "acme")) { return true }
                return false
            }
            #expect(suspended)
            guard case .forbidden(let problem) = try await client.getHostConfig(path: .init(tenant: "acme")) else {
                Issue.record("expected 403")
                return
            }
            #expect(try problem.body.applicationProblemJson.code == "tenant_suspended")

            for suffix in ["", "-wal"] {
                let path = harness.configuration.databasePath + suffix
                guard let raw = FileManager.default.contents(atPath: path) else { continue }
                #expect(raw.range(of: Data(Self.secretMarker.utf8)) == nil, "plaintext secret found in \(path)")
            }
        }
    }

    @Test("unknown and malformed tenants are typed problems, never 5xx")
    func unknownTenants() async throws {
        try await GatewayHarness.withGateway { _, client, _ in
            guard case .notFound(let missing) = try await client.getHostConfig(path: .init(tenant: "nobody-here"))
            else {
                Issue.record("expected 404")
                return
            }
            let problem = try missing.body.applicationProblemJson
            #expect(problem.code == "tenant_not_found")
            #expect(problem.status == 404)
            #expect(problem._type.hasPrefix("https://"))

            for malformed in ["A", "-x", "acme_1", String(repeating: "a", count: 64)] {
                guard case .badRequest(let bad) = try await client.getHostConfig(path: .init(tenant: malformed)) else {
                    Issue.record("expected 400 for \(malformed)")
                    continue
                }
                #expect(try bad.body.applicationProblemJson.code == "invalid_tenant_id")
            }
        }
    }
}
