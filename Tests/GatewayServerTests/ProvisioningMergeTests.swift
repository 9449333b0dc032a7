import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("List/search merges the platform with the provisioning service")
struct ProvisioningMergeTests {
    static func seed(_ fake: FakeProvisioning) {
        fake.state.withLock { state in
            state.items = [
                .init(id: "hello", name: "Hello (provisioned)", tags: ["greeting"]),
                .init(
                    id: "shop", name: "Shop", description: "Buy things", tags: ["retail"], lat: 35.68, lon: 139.76,
                    featuredRank: 2,
                    attributes: ["rating": "4.5", "region": "jp", "Field Name": "Café, Tokyo", "a:b%": "x"]),
                .init(
                    id: "bank", name: "Bank", tags: ["finance"], lat: 51.5, lon: -0.12, featuredRank: 1,
                    attributes: ["rating": "3", "region": "uk"], type: "native"),
            ]
        }
    }

    @Test("merged, platform wins on the same id, stable order; criteria reach provisioning")
    func merge() async throws {
        try await FakePlatform.with { platform in
            platform.seedHello()
            try await FakeProvisioning.with { provisioning in
                Self.seed(provisioning)
                try await GatewayHarness.withGateway { harness, client, _ in
                    let id = uniqueTenantID("merge")
                    var tenant = GatewayHarness.tenant(id, on: platform)
                    tenant.provisioning = ProvisioningSettings(
                        baseURL: provisioning.baseURL, superAppID: provisioning.superAppID, superAppVersion: "3.1",
                        apiKey: SecretValue(provisioning.apiKey))
                    try await harness.createTenant(tenant)

                    let all = try await client.listMiniApps(path: .init(tenant: id)).ok.body.json
                    #expect(all.items.map(\.id) == ["alpha", "bank", "hello", "shop"])
                    #expect(all.items.first { $0.id == "hello" }?.source == .platform)
                    #expect(all.items.first { $0.id == "bank" }?._type == .native)

                    let featured = try await client.listMiniApps(path: .init(tenant: id), query: .init(featured: true))
                        .ok.body.json
                    #expect(featured.items.map(\.id) == ["bank", "shop"])
                    let near = try await client.listMiniApps(
                        path: .init(tenant: id), query: .init(near: "35.6812,139.7671", radius: 5000)
                    ).ok.body.json
                    #expect(near.items.map(\.id) == ["shop"])
                    let filtered = try await client.listMiniApps(
                        path: .init(tenant: id), query: .init(filter: ["rating:greaterOrEquals:4", "region:in:jp,us"])
                    ).ok.body.json
                    #expect(filtered.items.map(\.id) == ["shop"])
                    let tagged = try await client.listMiniApps(path: .init(tenant: id), query: .init(tag: "finance")).ok
                        .body.json
                    #expect(tagged.items.map(\.id) == ["bank"])

                    let requests = provisioning.state.withLock { $0.requests }
                    #expect(
                        requests.allSatisfy {
                            $0.headers["x-api-key"] == "prov-key-9" && $0.headers["x-super-app-version"] == "3.1"
                        })
                    #expect(requests.allSatisfy { $0.path == "/superapps/super-1/miniapps" })
                    #expect(requests.contains { $0.query.contains { $0 == ("filter", "region:in:jp,us") } })

                    let bad = try await client.listMiniApps(
                        path: .init(tenant: id), query: .init(filter: ["rating:like:4"]))
                    #expect(try bad.badRequest.body.applicationProblemJson.code == "invalid_request")
                    let offMap = try await client.listMiniApps(
                        path: .init(tenant: id), query: .init(near: "95.6,139.7"))
                    #expect(try offMap.badRequest.body.applicationProblemJson.code == "invalid_request")
                    let several = try await client.listMiniApps(
                        path: .init(tenant: id), query: .init(filter: ["region:equals:jp,uk"]))
                    #expect(try several.badRequest.body.applicationProblemJson.code == "invalid_request")

                    provisioning.state.withLock { $0.failStatus = 500 }
                    let failing = try await client.listMiniApps(path: .init(tenant: id), query: .init(tag: "retail"))
                    #expect(try failing.badGateway.body.applicationProblemJson.detail?.contains("provisioning") == true)
                }
            }
        }
    }

    /// Runs `body` against a gateway whose tenant has the fake platform and the fake provisioning.
    func withMerged(
        _ items: [FakeProvisioning.Item]? = nil,
        _ body: @escaping @Sendable (Client, String, FakeProvisioning) async throws -> Void
    ) async throws {
        try await FakePlatform.with { platform in
            platform.seedHello()
            try await FakeProvisioning.with { provisioning in
                if let items { provisioning.state.withLock { $0.items = items } } else { Self.seed(provisioning) }
                try await GatewayHarness.withGateway { harness, client, _ in
                    let id = uniqueTenantID("merge")
                    var tenant = GatewayHarness.tenant(id, on: platform)
                    tenant.provisioning = ProvisioningSettings(
                        baseURL: provisioning.baseURL, superAppID: provisioning.superAppID, superAppVersion: "3.1",
                        apiKey: SecretValue(provisioning.apiKey))
                    try await harness.createTenant(tenant)
                    try await body(client, id, provisioning)
                }
            }
        }
    }

    @Test(
        "a mini app only provisioning knows opens by id (platform first, then provisioning's miniAppInfoById), with what a GeneXus client needs to load it; list items carry the same"
    )
    func provisioningOnlyItem() async throws {
        try await withMerged { client, id, provisioning in
            let shop = try await client.getMiniApp(path: .init(tenant: id, id: "shop")).ok.body.json
            #expect(shop.source == .provisioning && shop._type == .web && shop.version.versionId == "1")
            #expect(
                shop.entryPoint == "https://apps.example/shop/index.html"
                    && shop.metadataUrl == "https://apps.example/shop/metadata.json")
            #expect(shop.servicesUrl == "https://services.example/shop" && shop.signature == "sig-shop")
            #expect(
                provisioning.state.withLock { $0.requests.contains { $0.path == "/superapps/super-1/miniapps/shop" } })
            // The platform still answers for its own apps; an id nobody knows is 404.
            #expect(try await client.getMiniApp(path: .init(tenant: id, id: "hello")).ok.body.json.source == .platform)
            let nobody = try await client.getMiniApp(path: .init(tenant: id, id: "nobody"))
            guard case .notFound(let missing) = nobody else { Issue.record("expected 404, got \(nobody)"); return }
            // The platform answers an unknown id with no versions, as before: no published version.
            #expect(try missing.body.applicationProblemJson.code == "no_published_version")
            let listed = try await client.listMiniApps(path: .init(tenant: id)).ok.body.json.items
            #expect(listed.first { $0.id == "bank" }?.entryPoint == "https://apps.example/bank/index.html")
        }
    }

    @Test(
        "GeneXus filters: free-text field names as field:op:value (percent-encoding a ':' or '%'), or as a JSON object; values may hold commas in JSON; controls and overlong names are refused"
    )
    func freeTextFilterFields() async throws {
        try await withMerged { client, id, provisioning in
            func ids(_ filter: String) async throws -> [String] {
                try await client.listMiniApps(path: .init(tenant: id), query: .init(filter: [filter])).ok.body.json
                    .items.map(\.id)
            }
            #expect(try await ids("Field Name:contains:Tokyo") == ["shop"])
            #expect(try await ids(#"{"field":"Field Name","operator":"equals","value":"Café, Tokyo"}"#) == ["shop"])
            #expect(
                try await ids(#"{"field":"Field Name","operator":"in","values":["Café, Tokyo","Osaka"]}"#) == ["shop"])
            #expect(try await ids("a%3Ab%25:equals:x") == ["shop"])
            #expect(try await ids(#"{"field":"a:b%","operator":"equals","value":"x"}"#) == ["shop"])
            // On the wire to provisioning the reserved characters travel percent-encoded.
            #expect(
                provisioning.state.withLock {
                    $0.requests.contains { $0.query.contains { $0 == ("filter", "a%3Ab%25:equals:x") } }
                })
            #expect(
                provisioning.state.withLock {
                    $0.requests.contains { $0.query.contains { $0 == ("filter", "Field Name:equals:Café%2C Tokyo") } }
                })
            for bad in [
                "Field\u{7}Name:equals:x", String(repeating: "f", count: 65) + ":equals:x",
                #"{"field":"a","operator":"like","value":"x"}"#,
                #"{"field":"a","operator":"equals","values":["x","y"]}"#,
                #"{"field":"a","operator":"equals","value":1}"#, "{not json",
            ] {
                let refused = try await client.listMiniApps(path: .init(tenant: id), query: .init(filter: [bad]))
                #expect(try refused.badRequest.body.applicationProblemJson.code == "invalid_request", "\(bad)")
            }
        }
    }

    @Test("count=0 means all, as in GeneXus: up to 1000 items on a page, next beyond them")
    func countZeroMeansAll() async throws {
        let many = (0..<1005).map {
            FakeProvisioning.Item(id: String(format: "app-%04d", $0), name: String(format: "App %04d", $0))
        }
        try await withMerged(many) { client, id, _ in
            let first = try await client.listMiniApps(path: .init(tenant: id), query: .init(count: 0)).ok.body.json
            #expect(first.items.count == 1000)
            let next = try #require(first.next)
            let rest = try await client.listMiniApps(path: .init(tenant: id), query: .init(start: next, count: 0)).ok
                .body.json
            #expect(rest.items.count == 1005 + 2 - 1000 && rest.next == nil)
            #expect(Set(first.items.map(\.id) + rest.items.map(\.id)).count == 1007)
        }
    }
}
