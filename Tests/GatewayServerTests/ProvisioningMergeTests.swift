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
                .init(id: "shop", name: "Shop", description: "Buy things", tags: ["retail"], lat: 35.68, lon: 139.76, featuredRank: 2, attributes: ["rating": "4.5", "region": "jp"]),
                .init(id: "bank", name: "Bank", tags: ["finance"], lat: 51.5, lon: -0.12, featuredRank: 1, attributes: ["rating": "3", "region": "uk"], type: "native"),
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
                    tenant.provisioning = ProvisioningSettings(baseURL: provisioning.baseURL, superAppID: provisioning.superAppID, superAppVersion: "3.1", apiKey: SecretValue(provisioning.apiKey))
                    try await harness.createTenant(tenant)

                    let all = try await client.listMiniApps(path: .init(tenant: id)).ok.body.json
                    #expect(all.items.map(\.id) == ["alpha", "bank", "hello", "shop"])
                    #expect(all.items.first { $0.id == "hello" }?.source == .platform)
                    #expect(all.items.first { $0.id == "bank" }?._type == .native)

                    let featured = try await client.listMiniApps(path: .init(tenant: id), query: .init(featured: true)).ok.body.json
                    #expect(featured.items.map(\.id) == ["bank", "shop"])
                    let near = try await client.listMiniApps(path: .init(tenant: id), query: .init(near: "35.6812,139.7671", radius: 5000)).ok.body.json
                    #expect(near.items.map(\.id) == ["shop"])
                    let filtered = try await client.listMiniApps(path: .init(tenant: id), query: .init(filter: ["rating:greaterOrEquals:4", "region:in:jp,us"])).ok.body.json
                    #expect(filtered.items.map(\.id) == ["shop"])
                    let tagged = try await client.listMiniApps(path: .init(tenant: id), query: .init(tag: "finance")).ok.body.json
                    #expect(tagged.items.map(\.id) == ["bank"])

                    let requests = provisioning.state.withLock { $0.requests }
                    #expect(requests.allSatisfy { $0.headers["x-api-key"] == "prov-key-9" && $0.headers["x-super-app-version"] == "3.1" })
                    #expect(requests.allSatisfy { $0.path == "/superapps/super-1/miniapps" })
                    #expect(requests.contains { $0.query.contains { $0 == ("filter", "region:in:jp,us") } })

                    let bad = try await client.listMiniApps(path: .init(tenant: id), query: .init(filter: ["rating:like:4"]))
                    #expect(try bad.badRequest.body.applicationProblemJson.code == "invalid_request")
                    let offMap = try await client.listMiniApps(path: .init(tenant: id), query: .init(near: "95.6,139.7"))
                    #expect(try offMap.badRequest.body.applicationProblemJson.code == "invalid_request")
                    let several = try await client.listMiniApps(path: .init(tenant: id), query: .init(filter: ["region:equals:jp,uk"]))
                    #expect(try several.badRequest.body.applicationProblemJson.code == "invalid_request")

                    provisioning.state.withLock { $0.failStatus = 500 }
                    let failing = try await client.listMiniApps(path: .init(tenant: id), query: .init(tag: "retail"))
                    #expect(try failing.badGateway.body.applicationProblemJson.detail?.contains("provisioning") == true)
                }
            }
        }
    }
}
