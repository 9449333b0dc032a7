import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Analytics, localization, deep links and AASA over HTTP")
struct HostStateEndpointTests {
    private static let okKey = "miniapp.sdk.ios.alert.title.ok"

    @Test("a partial analytics batch keeps the valid events and lists the others by index; > 100 events is 422")
    func analytics() async throws {
        try await GatewayHarness.withGateway { harness, client, _ in
            let id = uniqueTenantID("an")
            try await harness.createTenant(Tenant(id: id, displayName: "Analytics"))
            let events: [Components.Schemas.AnalyticsEvent] = [
                .init(name: "mini_app_open", miniAppId: "hello", versionId: "v1"),
                .init(miniAppId: "hello", eventType: "nonsense", actionType: "open"),
                .init(
                    miniAppId: "hello", eventType: "click", actionType: "open", pageName: "home",
                    componentName: "button"),
                .init(name: "mini_app_close"),
                .init(name: "mini_app_open", miniAppId: "hello", occurredAt: "yesterday"),
                .init(name: "mini_app_open", miniAppId: "hello", occurredAt: "2026-11-22T10:00:00.5Z"),
            ]
            let result = try await client.postAnalytics(path: .init(tenant: id), body: .json(.init(events: events))).ok
                .body.json
            #expect(result.accepted == 3)
            #expect(result.rejected.map(\.index) == [1, 3, 4])
            #expect(result.rejected.allSatisfy { !$0.reasons.isEmpty })
            let counts = try await harness.bootstrap.stores.analytics.summary(
                tenantID: id, since: Date().addingTimeInterval(-60))
            #expect(counts.reduce(0) { $0 + $1.count } == 3)

            // Accepted `mini_app_open` events make their mini apps the user's recent ones;
            // refused ones (index 4: a bad date) do not.
            let recent = try await client.listUserMiniApps(path: .init(tenant: id)).ok.body.json
            #expect(recent.items.map(\.miniAppId) == ["hello"])
            let refusedOpen = try await client.postAnalytics(
                path: .init(tenant: id),
                body: .json(.init(events: [.init(name: "mini_app_open", miniAppId: "other", occurredAt: "yesterday")]))
            ).ok.body.json
            #expect(refusedOpen.accepted == 0)
            #expect(
                try await client.listUserMiniApps(path: .init(tenant: id)).ok.body.json.items.map(\.miniAppId) == [
                    "hello"
                ])

            let tooMany = Array(
                repeating: Components.Schemas.AnalyticsEvent(name: "mini_app_open", miniAppId: "hello"), count: 101)
            let refused = try await client.postAnalytics(path: .init(tenant: id), body: .json(.init(events: tooMany)))
            #expect(try refused.unprocessableContent.body.applicationProblemJson.code == "too_many_events")
        }
    }

    @Test(
        "localization: fallback ja-JP → ja → default → en, auto negotiates Accept-Language, ETag/304, overrides change the ETag"
    )
    func localization() async throws {
        try await GatewayHarness.withGateway { harness, client, _ in
            let id = uniqueTenantID("l10n")
            try await harness.createTenant(Tenant(id: id, displayName: "L10n"))
            let store = harness.bootstrap.stores.localization
            _ = try await store.set([Self.okKey: "はい"], tenantID: id, locale: "ja")

            let english = try await client.getLocalization(path: .init(tenant: id, locale: "en")).ok
            #expect(try english.body.json.entries.additionalProperties[Self.okKey] == "OK")
            let jaJP = try await client.getLocalization(path: .init(tenant: id, locale: "ja_JP")).ok
            let bundle = try jaJP.body.json
            #expect(bundle.locale == "ja-JP")
            #expect(bundle.chain == ["ja-JP", "ja", "en"])
            #expect(bundle.entries.additionalProperties[Self.okKey] == "はい")
            let etag = jaJP.headers.eTag
            _ = try await client.getLocalization(
                path: .init(tenant: id, locale: "ja-JP"), headers: .init(ifNoneMatch: etag)
            ).notModified

            let negotiated = try await client.getLocalization(
                path: .init(tenant: id, locale: "auto"), headers: .init(acceptLanguage: "fr;q=0.9, ja;q=0.8")
            ).ok.body.json
            #expect(negotiated.locale == "ja")
            let fallback = try await client.getLocalization(
                path: .init(tenant: id, locale: "auto"), headers: .init(acceptLanguage: "fr")
            ).ok.body.json
            #expect(fallback.locale == "en")

            _ = try await store.set([Self.okKey: "了解"], tenantID: id, locale: "ja")
            let changed = try await client.getLocalization(
                path: .init(tenant: id, locale: "ja-JP"), headers: .init(ifNoneMatch: etag)
            ).ok
            #expect(try changed.body.json.entries.additionalProperties[Self.okKey] == "了解")
            #expect(changed.headers.eTag != etag)
            _ = try await client.getLocalization(path: .init(tenant: id, locale: "not a tag")).badRequest
        }
    }

    @Test("deep links on the tenant's domains resolve; anything else is 422")
    func links() async throws {
        try await GatewayHarness.withGateway { harness, client, _ in
            let id = uniqueTenantID("links")
            try await harness.createTenant(Tenant(id: id, displayName: "Links"))
            _ = try await harness.bootstrap.stores.domains.add(
                host: "links.\(id).example", tenantID: id, appIDs: ["ABCDE12345.com.example.app"])
            let link = try await client.resolveDeepLink(
                path: .init(tenant: id), query: .init(url: "https://links.\(id).example/miniapp/hello?from=push#top")
            ).ok.body.json
            #expect(link.miniAppId == "hello")
            #expect(link.query == "from=push")
            #expect(link.fragment == "top")
            for bad in [
                "http://links.\(id).example/miniapp/hello", "https://elsewhere.example/miniapp/hello",
                "https://links.\(id).example/other/hello", "not a url",
            ] {
                let out = try await client.resolveDeepLink(path: .init(tenant: id), query: .init(url: bad))
                #expect(try out.unprocessableContent.body.applicationProblemJson.code == "invalid_deep_link")
            }
        }
    }

    @Test("AASA is served per Host header; an unknown host is a 404 problem")
    func appSiteAssociation() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let id = uniqueTenantID("aasa")
            try await harness.createTenant(Tenant(id: id, displayName: "AASA"))
            let domains = harness.bootstrap.stores.domains
            _ = try await domains.add(host: "one.\(id).example", tenantID: id, appIDs: ["TEAM111111.com.example.one"])
            _ = try await domains.add(host: "two.\(id).example", tenantID: id, appIDs: ["TEAM222222.com.example.two"])

            // The generated client sends Host 127.0.0.1: not a registered domain.
            #expect(
                try await client.getAppSiteAssociation().notFound.body.applicationProblemJson.code == "unknown_host")
            for (host, app) in [
                ("one.\(id).example", "TEAM111111.com.example.one"),
                ("two.\(id).example:443", "TEAM222222.com.example.two"),
            ] {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/.well-known/apple-app-site-association")
                request.headers.replaceOrAdd(name: "Host", value: host)
                let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
                #expect(response.status.code == 200)
                // JSON may escape '/' as '\/'.
                let json = String(buffer: try await response.body.collect(upTo: 1 << 20)).replacingOccurrences(
                    of: "\\/", with: "/")
                #expect(json.contains(app))
                #expect(json.contains("/miniapp/*"))
                #expect(!json.contains(app == "TEAM111111.com.example.one" ? "TEAM222222" : "TEAM111111"))
            }
        }
    }

    @Test("assetlinks.json is served per Host header: app links and passkeys for each Android app")
    func assetLinks() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let id = uniqueTenantID("links")
            try await harness.createTenant(Tenant(id: id, displayName: "Asset links"))
            let domains = harness.bootstrap.stores.domains
            let print = String(repeating: "0A:", count: 31) + "FF"
            let app = try AndroidApp.checked(packageName: "com.example.\(id.replacingOccurrences(of: "-", with: "_"))", fingerprints: [print.lowercased()])
            try await domains.add(host: "android.\(id).example", tenantID: id, appIDs: [], androidApps: [app], trail: nil)
            try await domains.add(host: "apple.\(id).example", tenantID: id, appIDs: ["TEAM111111.com.example.one"])

            #expect(try await client.getAssetLinks().notFound.body.applicationProblemJson.code == "unknown_host")
            func statements(_ host: String) async throws -> [[String: Any]]? {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/.well-known/assetlinks.json")
                request.headers.replaceOrAdd(name: "Host", value: host)
                let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
                #expect(response.status.code == 200)
                #expect(response.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true)
                let body = try await response.body.collect(upTo: 1 << 20)
                return try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [[String: Any]]
            }
            let android = try #require(try await statements("Android.\(id).example:443"))
            #expect(android.count == 1)
            let relations = try #require(android.first?["relation"] as? [String])
            #expect(Set(relations) == ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"])
            let target = try #require(android.first?["target"] as? [String: Any])
            #expect(target["namespace"] as? String == "android_app" && target["package_name"] as? String == app.packageName)
            #expect(target["sha256_cert_fingerprints"] as? [String] == [print])
            // A domain with Apple apps only grants nothing on Android.
            #expect(try await statements("apple.\(id).example")?.isEmpty == true)
        }
    }
}
