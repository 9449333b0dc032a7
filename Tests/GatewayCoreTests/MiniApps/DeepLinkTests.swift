import Foundation
import Testing
@testable import GatewayCore

@Suite struct DeepLinkTests {
    let hosts: Set<String> = ["app.acme.com"]

    @Test func resolvesTheDocumentedShape() throws {
        let link = try DeepLinkResolver.resolve(
            "https://app.acme.com/miniapp/abc-123?myParam=my%20Value&x=1#myFragment", tenantHosts: hosts)
        #expect(link == DeepLink(miniAppID: "abc-123", query: "myParam=my%20Value&x=1", fragment: "myFragment"))
        #expect(
            try DeepLinkResolver.resolve("https://APP.acme.com:443/miniapp/abc/", tenantHosts: hosts)
                == DeepLink(miniAppID: "abc", query: nil, fragment: nil))
    }

    @Test func refusesEverythingElse() {
        let cases: [(String, DeepLinkError)] = [
            ("not a url", .notAURL),
            ("/miniapp/abc", .notAURL),
            ("http://app.acme.com/miniapp/abc", .notHTTPS),
            ("myapp://miniapp/abc", .notHTTPS),
            ("https://evil.com/miniapp/abc", .unknownHost("evil.com")),
            ("https://user@app.acme.com/miniapp/abc", .unknownHost("app.acme.com")),
            ("https://app.acme.com:8443/miniapp/abc", .unknownHost("app.acme.com")),
            ("https://app.acme.com/miniapps/abc", .notAMiniAppPath("/miniapps/abc")),
            ("https://app.acme.com/miniapp", .notAMiniAppPath("/miniapp")),
            ("https://app.acme.com/miniapp/abc/extra", .notAMiniAppPath("/miniapp/abc/extra")),
            ("https://app.acme.com/miniapp/a%20b", .invalidMiniAppID("a%20b")),
            ("https://app.acme.com/miniapp/..", .invalidMiniAppID("..")),
        ]
        for (url, expected) in cases {
            #expect(throws: expected, "\(url)") { try DeepLinkResolver.resolve(url, tenantHosts: hosts) }
        }
    }

    @Test(arguments: StoreBackend.available) func domainsAndAASAPerHost(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.domains
        try await store.add(host: "App.Acme.com", tenantID: "acme", appIDs: ["ABCDE12345.com.acme.app"])
        try await store.add(
            host: "app.acme.com", tenantID: "acme", appIDs: ["ABCDE12345.com.acme.app", "ABCDE12345.com.acme.beta"])
        try await store.add(host: "links.beta.io", tenantID: "beta", appIDs: ["ZZZZZ99999.io.beta"])
        await #expect(throws: TenantDomainError.hostTaken(host: "app.acme.com", tenantID: "acme")) {
            try await store.add(host: "app.acme.com", tenantID: "beta", appIDs: ["ZZZZZ99999.io.beta"])
        }
        await #expect(throws: TenantDomainError.self) {
            try await store.add(host: "https://x.com", tenantID: "acme", appIDs: [])
        }
        await #expect(throws: TenantDomainError.self) {
            try await store.add(host: "x.com", tenantID: "acme", appIDs: ["bad"])
        }

        let service = DeepLinkService(domains: store)
        #expect(try await service.resolve("https://app.acme.com/miniapp/m1", tenantID: "acme").miniAppID == "m1")
        await #expect(throws: DeepLinkError.unknownHost("app.acme.com")) {
            try await service.resolve("https://app.acme.com/miniapp/m1", tenantID: "beta")
        }

        let acme = try #require(try await service.appSiteAssociation(host: "app.acme.com:443"))
        let json = try #require(try JSONSerialization.jsonObject(with: acme) as? [String: Any])
        let applinks = try #require(json["applinks"] as? [String: Any])
        let detail = try #require((applinks["details"] as? [[String: Any]])?.first)
        #expect(detail["appIDs"] as? [String] == ["ABCDE12345.com.acme.app", "ABCDE12345.com.acme.beta"])
        #expect(detail["paths"] as? [String] == ["/miniapp/*"])
        #expect(detail["components"] as? [[String: String]] == [["/": "/miniapp/*"]])
        #expect(
            (json["webcredentials"] as? [String: Any])?["apps"] as? [String] == [
                "ABCDE12345.com.acme.app", "ABCDE12345.com.acme.beta",
            ])
        let beta = try #require(try await service.appSiteAssociation(host: "links.beta.io"))
        #expect(String(decoding: beta, as: UTF8.self).contains("ZZZZZ99999.io.beta"))
        #expect(!String(decoding: beta, as: UTF8.self).contains("ABCDE12345"))
        #expect(try await service.appSiteAssociation(host: "unknown.example.com") == nil)

        try await store.remove(host: "app.acme.com", tenantID: "acme")
        await #expect(throws: TenantDomainError.notFound(host: "app.acme.com")) {
            try await store.remove(host: "app.acme.com", tenantID: "acme")
        }
        #expect(try await store.domains(tenantID: nil).map(\.host) == ["links.beta.io"])
    }
}
