import AsyncHTTPClient
import Crypto
import Foundation
import GatewayCore
import NIOCore
import Testing

/// The RAS-compatible API as the Rakuten MiniApp SDK calls it (issue 17): the SDK's request
/// sequence with its headers against a gateway on a fake platform, every answer decoded with
/// the SDKs' own field names (the structs below copy their `CodingKeys`).
@Suite("RAS-compatible API: the Rakuten MiniApp SDK's calls, wire format and errors")
struct RASCompatibilityTests {
    static let clientKey = "client-key-abcdefghijklmnop"

    // The iOS SDK's models (ios-miniapp Sources/Classes/core/Models, signature/Client/KeyModel.swift).
    struct MiniAppInfo: Decodable {
        var id: String
        var displayName: String?
        var icon: URL?
        var version: Version
        var promotionalImageUrl: String?
        var promotionalText: String?
    }

    struct Version: Decodable {
        var versionTag: String
        var versionId: String
    }

    struct ManifestResponse: Decodable {
        var manifest: [String]
        var publicKeyId: String?
    }

    struct MetaDataResponse: Decodable {
        struct Permission: Decodable { var name: String?; var reason: String? }
        struct Scopes: Decodable { var audience: String; var scopes: [String] }
        struct Model: Decodable {
            var reqPermissions: [Permission]?
            var optPermissions: [Permission]?
            var customMetaData: [String: String]?
            var accessTokenPermissions: [Scopes]?
        }
        var bundleManifest: Model
    }

    struct PreviewMiniAppInfo: Decodable {
        struct Host: Decodable { var id: String?; var subscriptionkey: String? }
        var miniapp: MiniAppInfo
        var host: Host?
    }

    struct KeyModel: Decodable {
        let identifier: String
        let key: String
        let pem: String
        enum CodingKeys: String, CodingKey { case identifier = "id", key = "ecKey", pem = "pemKey" }
    }

    /// iOS `UnauthorizedData` and Android `AuthErrorResponse` read from the same body.
    struct UnauthorizedData: Decodable { let errorDescription: String; let error: String
        enum CodingKeys: String, CodingKey { case errorDescription = "error_description", error } }
    struct AuthErrorResponse: Decodable { let code: String; let message: String }
    /// iOS `ErrorData`, Android `HttpErrorResponse`.
    struct ErrorData: Decodable { let code: Int; let message: String }

    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(T.self, from: body) }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A GET as the SDK sends it.
    static func sdkGET(
        _ url: String, apiKey: String? = "ras-" + clientKey, extra: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        if let apiKey { request.headers.add(name: "apiKey", value: apiKey) }
        for (name, value) in [
            ("ras-app-id", "com.example.host"), ("ras-sdk-name", "MiniApp iOS SDK"), ("ras-sdk-version", "5.6.1"),
            ("ras-device-model", "iPhone15,2"), ("ras-os-version", "17.4"),
        ] + extra {
            request.headers.add(name: name, value: value)
        }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), headers: headers, body: Data(buffer: body))
    }

    static func tenant(_ id: String, on fake: FakePlatform, requireSignature: Bool = false) -> Tenant {
        var tenant = GatewayHarness.tenant(id, on: fake, requireSignature: requireSignature)
        tenant.ras = RASSettings().rotated(to: clientKey, overlap: 0, now: Date())
        return tenant
    }

    /// A signed version: key-1 signs hello/v1's zip.
    static func seedSignedHello(_ fake: FakePlatform) throws {
        fake.seedHello()
        let key = P256.Signing.PrivateKey()
        let zip = Array("zip bytes of hello v1".utf8)
        let digest = SHA256.hash(data: zip).map { String(format: "%02x", $0) }.joined()
        let signature = try key.signature(for: Data(("v1" + digest).utf8)).derRepresentation.base64EncodedString()
        fake.state.withLock { state in
            state.files["/files/hello-v1.zip"] = zip
            state.keys["key-1"] = PlatformPublicKey(
                id: "key-1", ecKey: key.publicKey.x963Representation.base64EncodedString(),
                pemKey: key.publicKey.pemRepresentation)
            state.fileManifests["hello/v1"] = PlatformFileManifest(
                files: ["\(fake.baseURL)/files/hello-v1.zip"], publicKeyID: "key-1", signature: signature)
        }
    }

    @Test(
        "the SDK's sequence: list, info, manifest, metadata(lang), keys, preview; every answer decodes with the SDK's field names"
    )
    func sdkSequence() async throws {
        let log = RecordedLog()
        try await FakePlatform.with { fake in
            try Self.seedSignedHello(fake)
            try await GatewayHarness.withGateway(logger: log.logger()) { harness, _, port in
                let id = uniqueTenantID("ras")
                try await harness.createTenant(Self.tenant(id, on: fake), signIn: false)
                let base = "http://127.0.0.1:\(port)/t/\(id)/ras"
                let project = fake.projectID
                var answers: [Answer] = []

                let list = try await Self.sdkGET("\(base)/host/\(project)/miniapps")
                #expect(list.status == 200, "\(list.text)")
                let apps = try list.decode([MiniAppInfo].self)
                #expect(apps.map(\.id).sorted() == ["alpha", "hello"])
                #expect(apps.first { $0.id == "hello" }?.icon?.absoluteString == "https://cdn.example/hello.png")
                answers.append(list)
                // Android asks with an empty test path: a trailing slash.
                let android = try await Self.sdkGET("\(base)/host/\(project)/miniapps/")
                #expect(android.status == 200)
                #expect(try android.decode([MiniAppInfo].self).count == 2)

                let info = try await Self.sdkGET("\(base)/host/\(project)/miniapps?miniAppId=hello")
                let latest = try #require(try info.decode([MiniAppInfo].self).first)
                #expect(latest.version.versionId == "v1" && latest.version.versionTag == "1.0.0")
                // No published version (and an id the platform answers with an empty array): `[]`, as the platform answers.
                #expect(
                    try await Self.sdkGET("\(base)/host/\(project)/miniapps?miniAppId=draft").decode([MiniAppInfo].self)
                        .isEmpty)
                // An unknown version: 404 in the SDKs' shape.
                let unknown = try await Self.sdkGET("\(base)/host/\(project)/miniapp/hello/version/v9/metadata")
                #expect(unknown.status == 404)
                #expect(try unknown.decode(ErrorData.self).code == 404)
                answers += [info, unknown]

                let manifest = try await Self.sdkGET(
                    "\(base)/host/\(project)/miniapp/hello/version/v1/manifest",
                    extra: [("Accept-Encoding", "identity")])
                #expect(manifest.status == 200, "\(manifest.text)")
                let files = try manifest.decode(ManifestResponse.self)
                #expect(files.manifest == ["\(fake.baseURL)/files/hello-v1.zip"])
                #expect(files.publicKeyId == "key-1")
                #expect(manifest.headers["signature"]?.isEmpty == false)
                #expect(manifest.headers["x-gateway-signature-verdict"] == "valid")
                #expect(
                    try await Self.sdkGET("\(base)/host/\(project)/miniapp/hello/version/v1/preview/manifest").status
                        == 200)
                answers.append(manifest)

                let metadata = try await Self.sdkGET(
                    "\(base)/host/\(project)/miniapp/hello/version/v1/metadata?lang=ja")
                let bundleManifest = try metadata.decode(MetaDataResponse.self).bundleManifest
                #expect(bundleManifest.reqPermissions?.first?.reason == "挨拶のため")
                #expect(
                    bundleManifest.optPermissions?.first?.reason == "To find shops",
                    "reasons fall back to the default language as on /v1")
                #expect(bundleManifest.accessTokenPermissions?.first?.scopes == ["idinfo_read_openid"])
                answers.append(metadata)

                let key = try await Self.sdkGET("http://127.0.0.1:\(port)/t/\(id)/ras/keys/key-1")
                let model = try key.decode(KeyModel.self)
                #expect(model.identifier == "key-1" && !model.key.isEmpty && model.pem.contains("PUBLIC KEY"))
                #expect(try await Self.sdkGET("http://127.0.0.1:\(port)/t/\(id)/ras/keys/key-9").status == 404)
                answers.append(key)

                let preview = try await Self.sdkGET("\(base)/host/\(project)/preview-codes/PREVIEW1")
                let previewInfo = try preview.decode(PreviewMiniAppInfo.self)
                #expect(previewInfo.miniapp.id == "hello")
                #expect(previewInfo.host?.id == "host-1")
                #expect(
                    previewInfo.host?.subscriptionkey == Self.clientKey, "the host key is the caller's own client key")
                answers.append(preview)

                // The real keys never leave the gateway: not in any answer, not in any log line.
                for answer in answers {
                    for secret in [fake.subscriptionKey, "host-secret-key-1", "host-secret-key-2"] {
                        #expect(
                            !answer.text.contains(secret) && !answer.headers.values.contains { $0.contains(secret) })
                    }
                }
                #expect(!log.all.contains { $0.contains(fake.subscriptionKey) })
                // Upstream, the gateway sent the platform's key, never the client key.
                let upstreamKeys = Set(fake.requests.compactMap { $0.headers["apikey"] })
                #expect(upstreamKeys == ["ras-" + fake.subscriptionKey])
            }
        }
    }

    @Test(
        "a wrong, missing or rotated-out client key is 401 in both SDKs' shapes; a rotation keeps the old key for its overlap"
    )
    func clientKeys() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, _, port in
                let id = uniqueTenantID("ras")
                try await harness.createTenant(Self.tenant(id, on: fake), signIn: false)
                let url = "http://127.0.0.1:\(port)/t/\(id)/ras/host/\(fake.projectID)/miniapps"
                for apiKey in ["ras-wrong-key-0123456789abcdef", nil, "ras-" + fake.subscriptionKey] {
                    let refused = try await Self.sdkGET(url, apiKey: apiKey)
                    #expect(refused.status == 401)
                    #expect(try refused.decode(UnauthorizedData.self).error == "invalid_client_key")
                    #expect(try refused.decode(AuthErrorResponse.self).code == "invalid_client_key")
                }
                // Without the `ras-` prefix too (the SDK adds it only when missing).
                #expect(try await Self.sdkGET(url, apiKey: Self.clientKey).status == 200)
                // Rotation with an overlap: both keys work; a second rotation without overlap ends the first.
                let next = "next-client-key-0123456789"
                try await harness.updateTenant(id) { $0.ras = $0.ras.rotated(to: next, overlap: 3600, now: Date()) }
                #expect(try await Self.sdkGET(url, apiKey: "ras-" + next).status == 200)
                #expect(try await Self.sdkGET(url).status == 200)
                try await harness.updateTenant(id) {
                    $0.ras = $0.ras.rotated(to: "third-client-key-0123456789", overlap: 0, now: Date())
                }
                #expect(try await Self.sdkGET(url).status == 401)
                #expect(try await Self.sdkGET(url, apiKey: "ras-" + next).status == 401)
                // A project id that is not the tenant's.
                #expect(
                    try await Self.sdkGET(
                        "http://127.0.0.1:\(port)/t/\(id)/ras/host/other/miniapps",
                        apiKey: "ras-third-client-key-0123456789"
                    ).status == 404)
            }
        }
    }

    @Test("a tenant that requires a bearer token as well refuses the client key alone, in the SDKs' auth shape")
    func bearerRequired() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, _, port in
                let id = uniqueTenantID("ras")
                var tenant = Self.tenant(id, on: fake)
                tenant.ras.requireBearer = true
                try await harness.createTenant(tenant)
                let url = "http://127.0.0.1:\(port)/t/\(id)/ras/host/\(fake.projectID)/miniapps"
                let refused = try await Self.sdkGET(url)
                #expect(refused.status == 401)
                #expect(try refused.decode(AuthErrorResponse.self).code == "unauthorized")
                let token = try await harness.users.accessToken(tenant: id)
                #expect(try await Self.sdkGET(url, extra: [("Authorization", "Bearer \(token)")]).status == 200)
                // A token of another tenant is no token of this one.
                let other = uniqueTenantID("ras")
                try await harness.createTenant(Self.tenant(other, on: fake))
                let foreign = try await harness.users.accessToken(tenant: other)
                #expect(try await Self.sdkGET(url, extra: [("Authorization", "Bearer \(foreign)")]).status == 401)
            }
        }
    }

    @Test("in-app purchases pass through with the real key, never cached; a transaction POST is sent once")
    func inAppPurchases() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            fake.state.withLock {
                $0.purchaseItems["hello"] = .object([
                    "items": .array([.object(["androidStoreId": "coins_100", "productId": "coins-100"])])
                ])
            }
            try await GatewayHarness.withGateway { harness, _, port in
                let id = uniqueTenantID("ras")
                try await harness.createTenant(Self.tenant(id, on: fake), signIn: false)
                let base = "http://127.0.0.1:\(port)/t/\(id)/ras/host/\(fake.projectID)/miniapp"
                struct Items: Decodable {
                    struct Item: Decodable {
                        var androidStoreId: String
                        var productId: String
                    }
                    var items: [Item]
                }
                struct Transaction: Decodable {
                    var productId: String
                    var transactionToken: String
                    var transactionState: String
                }
                let items = try await Self.sdkGET("\(base)/hello/purchase-items")
                #expect(try items.decode(Items.self).items.first?.productId == "coins-100")
                let before = fake.requests.count
                _ = try await Self.sdkGET("\(base)/hello/purchase-items")
                #expect(fake.requests.count == before + 1, "never cached: every call reaches the platform")
                #expect(
                    try await Self.sdkGET("\(base)/alpha/purchase-items").status == 404, "a mini app without purchases")

                var post = HTTPClientRequest(url: "\(base)/hello/transaction")
                post.method = .POST
                post.headers.add(name: "apiKey", value: "ras-" + Self.clientKey)
                post.headers.add(name: "Content-Type", value: "application/json")
                post.body = .bytes(
                    ByteBuffer(
                        string:
                            #"{"platform":"ANDROID","productId":"coins-100","transactionState":"PURCHASED","transactionId":"GPA.1","transactionDate":"2026-11-24T10:00:00Z","transactionReceipt":"r","purchaseToken":"p"}"#
                    ))
                let recorded = try await TestHTTP.noRedirects.execute(post, timeout: .seconds(10))
                #expect(recorded.status.code == 200)
                let transaction = try JSONDecoder().decode(
                    Transaction.self, from: Data(buffer: try await recorded.body.collect(upTo: 1 << 16)))
                #expect(transaction.transactionState == "PURCHASED")
                #expect(fake.state.withLock { $0.transactionBodies.count } == 1)
                #expect(fake.state.withLock { $0.transactionBodies.first?.objectValue?["purchaseToken"] } == "p")
                let looked = try await Self.sdkGET("\(base)/hello/transaction/\(transaction.transactionToken)")
                #expect(try looked.decode(Transaction.self).productId == "coins-100")
                #expect(
                    fake.requests.filter { $0.path.contains("purchase") || $0.path.contains("transaction") }.allSatisfy
                    { $0.headers["apikey"] == "ras-" + fake.subscriptionKey })
            }
        }
    }

    @Test("one engine: a RAS read fills the cache entry /v1 reads, and /v1's entry serves RAS")
    func sharedCache() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, port in
                let id = uniqueTenantID("ras")
                try await harness.createTenant(Self.tenant(id, on: fake))
                let base = "http://127.0.0.1:\(port)/t/\(id)/ras/host/\(fake.projectID)"
                #expect(try await Self.sdkGET("\(base)/miniapp/hello/version/v1/metadata").status == 200)
                let afterRAS = fake.requests.count
                _ = try await client.getMiniAppManifest(path: .init(tenant: id, id: "hello", versionId: "v1")).ok
                #expect(fake.requests.count == afterRAS, "/v1 reads the entry RAS filled")
                _ = try await client.getMiniApp(path: .init(tenant: id, id: "hello")).ok
                let afterV1 = fake.requests.count
                #expect(try await Self.sdkGET("\(base)/miniapps?miniAppId=hello").status == 200)
                #expect(fake.requests.count == afterV1, "RAS reads the entry /v1 filled")
            }
        }
    }

    @Test("errors as the SDKs read them: never a 5xx for a permanent condition, Retry-After on outages and rate limits")
    func errors() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(upstreamBudget: .seconds(2)) { harness, _, port in
                // A tenant without a platform: permanent, so 404 (the SDKs retry 5xx five times).
                let bare = uniqueTenantID("ras")
                var tenant = Tenant(id: bare, displayName: "Bare")
                tenant.ras = RASSettings().rotated(to: Self.clientKey, overlap: 0, now: Date())
                try await harness.createTenant(tenant, signIn: false)
                let none = try await Self.sdkGET("http://127.0.0.1:\(port)/t/\(bare)/ras/host/p/miniapps")
                #expect(none.status == 404)
                #expect(try none.decode(ErrorData.self).code == 404)

                let id = uniqueTenantID("ras")
                try await harness.createTenant(Self.tenant(id, on: fake), signIn: false)
                let base = "http://127.0.0.1:\(port)/t/\(id)/ras/host/\(fake.projectID)"
                // The platform refuses the gateway's own key: 403 in the auth shape.
                fake.state.withLock { $0.fault = .status(401) }
                let refused = try await Self.sdkGET("\(base)/miniapp/hello/version/v1/metadata")
                #expect(refused.status == 403)
                #expect(try refused.decode(AuthErrorResponse.self).code == "upstream_rejected")
                // The platform's rate limit passes through with its Retry-After.
                fake.state.withLock { $0.fault = .status(429, retryAfter: "7") }
                let limited = try await Self.sdkGET("\(base)/miniapp/alpha/version/a2/metadata")
                #expect(limited.status == 429)
                #expect(limited.headers["retry-after"] == "7")
                #expect(try limited.decode(ErrorData.self).code == 429)
                // An outage without a stale copy: 5xx with Retry-After.
                fake.state.withLock { $0.fault = .status(503) }
                let down = try await Self.sdkGET("\(base)/miniapps?miniAppId=alpha")
                #expect(down.status == 503)
                #expect(down.headers["retry-after"] != nil)
                #expect(try down.decode(ErrorData.self).code == 503)
                // A malformed id: 400 in the SDKs' shape, nothing sent upstream.
                fake.state.withLock { $0.fault = nil }
                let before = fake.requests.count
                let bad = try await Self.sdkGET("\(base)/miniapp/a%20b/version/v1/metadata")
                #expect(bad.status == 400)
                #expect(try bad.decode(ErrorData.self).code == 400)
                #expect(fake.requests.count == before)
            }
        }
    }
}
