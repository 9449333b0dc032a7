import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Mini-app operations reach the platform exactly as its contract says")
struct MiniAppWireTests {
    @Test("list, info, manifest, bundle and preview: paths, apiKey, no Authorization, lang")
    func wireContract() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("wire")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))

                let list = try await client.listMiniApps(path: .init(tenant: id), query: .init(count: 1)).ok.body.json
                #expect(list.items.map(\.id) == ["alpha"])
                #expect(list.next == 1)
                let found = try await client.listMiniApps(path: .init(tenant: id), query: .init(text: "HELLO")).ok.body
                    .json
                #expect(found.items.map(\.id) == ["hello"])

                let app = try await client.getMiniApp(path: .init(tenant: id, id: "hello")).ok.body.json
                #expect(app.version.versionId == "v1")

                let manifest = try await client.getMiniAppManifest(
                    path: .init(tenant: id, id: "hello", versionId: "v1"), query: .init(lang: "ja")
                ).ok.body.json
                #expect(manifest.requiredPermissions.first?.reason == "挨拶のため")
                // No Japanese reason upstream: the default language's reason stands in.
                #expect(manifest.optionalPermissions.first?.reason == "To find shops")
                #expect(manifest.accessTokenPermissions.first?.audience == "rae")

                let bundle = try await client.getMiniAppBundle(path: .init(tenant: id, id: "hello", versionId: "v1")).ok
                    .body.json
                #expect(bundle.files.count == 2)
                #expect(bundle.verification.status == .unsigned)

                let preview = try await client.getPreview(path: .init(tenant: id, code: "PREVIEW1")).ok.body.json
                #expect(preview.miniApp.id == "hello")

                let requests = fake.requests
                #expect(!requests.isEmpty)
                for request in requests {
                    #expect(request.headers["apikey"] == "ras-sub-key-123")
                    #expect(request.headers["authorization"] == nil)
                }
                let paths = Set(requests.map(\.path))
                #expect(paths.contains("/host/proj-1/miniapps"))
                #expect(paths.contains("/host/proj-1/miniapp/hello/version/v1/metadata"))
                #expect(paths.contains("/host/proj-1/miniapp/hello/version/v1/manifest"))
                #expect(paths.contains("/host/proj-1/preview-codes/PREVIEW1"))
                #expect(requests.contains { $0.query["miniAppId"] == "hello" })
                #expect(requests.contains { $0.path.hasSuffix("/metadata") && $0.query["lang"] == "ja" })
            }
        }
    }

    @Test("a tenant in preview mode calls the /preview variants")
    func previewMode() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("prev")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake, preview: true))
                _ = try await client.listMiniApps(path: .init(tenant: id)).ok
                _ = try await client.getMiniAppManifest(path: .init(tenant: id, id: "hello", versionId: "v1")).ok
                let paths = fake.requests.map(\.path)
                #expect(paths.contains("/host/proj-1/miniapps/preview"))
                #expect(paths.contains("/host/proj-1/miniapp/hello/version/v1/preview/metadata"))
                #expect(fake.requests.allSatisfy { $0.query["lang"] == nil })
            }
        }
    }

    @Test("unknown mini app → 404 miniapp_not_found; empty array → 404 no_published_version; ETag → 304")
    func notFoundAndETag() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("nf")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let missing = try await client.getMiniAppManifest(path: .init(tenant: id, id: "nope", versionId: "v1"))
                #expect(try missing.notFound.body.applicationProblemJson.code == "miniapp_not_found")
                let draft = try await client.getMiniApp(path: .init(tenant: id, id: "draft"))
                #expect(try draft.notFound.body.applicationProblemJson.code == "no_published_version")
                // Negative answers are cached: the second ask does not reach the platform.
                _ = try await client.getMiniApp(path: .init(tenant: id, id: "draft"))
                #expect(fake.requests.filter { $0.query["miniAppId"] == "draft" }.count == 1)

                let ok = try await client.getMiniApp(path: .init(tenant: id, id: "hello")).ok
                let again = try await client.getMiniApp(
                    path: .init(tenant: id, id: "hello"), headers: .init(ifNoneMatch: ok.headers.eTag))
                #expect(try again.notModified.headers.eTag == ok.headers.eTag)
            }
        }
    }

    @Test("a tenant without a platform answers 502 upstream_not_configured; /home stays 200")
    func notConfigured() async throws {
        try await GatewayHarness.withGateway { harness, client, _ in
            let id = uniqueTenantID("bare")
            try await harness.createTenant(Tenant(id: id, displayName: "Bare"))
            let output = try await client.listMiniApps(path: .init(tenant: id))
            #expect(try output.badGateway.body.applicationProblemJson.code == "upstream_not_configured")
            let home = try await client.getHome(path: .init(tenant: id)).ok.body.json
            #expect(!home.complete)
            #expect(home.missing == [.featured])
        }
    }

    @Test("the demo tenant is served offline from Deploy/demo (LocalDirectoryPlatform), signature verified")
    func demoCatalog() async throws {
        try await GatewayHarness.withGateway(homePartBudget: .seconds(5)) { _, client, _ in
            let list = try await client.listMiniApps(path: .init(tenant: "demo")).ok.body.json
            #expect(list.items.map(\.id) == ["hello", "weather"])
            let manifest = try await client.getMiniAppManifest(
                path: .init(tenant: "demo", id: "hello", versionId: "v1"), query: .init(lang: "ja")
            ).ok.body.json
            #expect(manifest.requiredPermissions.first?.reason == "お名前でご挨拶するため。")
            #expect(manifest.optionalPermissions.last?.reason == "To say hello in your city.")
            let bundle = try await client.getMiniAppBundle(path: .init(tenant: "demo", id: "hello", versionId: "v1")).ok
                .body.json
            #expect(bundle.verification.status == .valid)
            let weather = try await client.getMiniAppBundle(path: .init(tenant: "demo", id: "weather", versionId: "w3"))
                .ok.body.json
            #expect(weather.verification.status == .unsigned)
            _ = try await client.getPreview(path: .init(tenant: "demo", code: "PREVIEW1")).ok
            let missing = try await client.getPreview(path: .init(tenant: "demo", code: "NOPE"))
            #expect(try missing.notFound.body.applicationProblemJson.code == "preview_not_found")
            let home = try await client.getHome(path: .init(tenant: "demo")).ok.body.json
            #expect(home.complete)
        }
    }

    /// Issue 14, item 4: a number in `customMetaData` used to fail the whole manifest.
    @Test(
        "seed fields pass through: customMetaData members of any JSON type (as the SDKs' text) in manifests; promotionalImageUrl and promotionalText in list items"
    )
    func seedFieldsPassThrough() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            fake.set { state in
                state.apps[0].promotionalImageUrl = "https://cdn.example/hello-promo.png"
                state.rawMetadata["hello/v1/"] =
                    #"{"reqPermissions":[{"name":"rakuten.miniapp.user.USER_NAME","reason":"To greet you"}],"#
                    + #""customMetaData":{"termsLink":"https://hello.example/terms","privacyPolicyLink":"https://hello.example/privacy","#
                    + #""fileSizeInMb":12.5,"downloads":3000,"beta":true,"nothing":null,"screens":["a","b"]}}"#
            }
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("seedfields")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let manifest = try await client.getMiniAppManifest(
                    path: .init(tenant: id, id: "hello", versionId: "v1")
                ).ok.body.json
                #expect(
                    manifest.customMetaData.additionalProperties == [
                        "termsLink": "https://hello.example/terms",
                        "privacyPolicyLink": "https://hello.example/privacy",
                        "fileSizeInMb": "12.5", "downloads": "3000", "beta": "true", "screens": #"["a","b"]"#,
                    ])
                let hello = try await client.listMiniApps(path: .init(tenant: id)).ok.body.json.items.first {
                    $0.id == "hello"
                }
                #expect(
                    hello?.promotionalImageUrl == "https://cdn.example/hello-promo.png"
                        && hello?.promotionalText == "Says hello")
            }
        }
    }
}
