import Foundation
import Testing
@testable import GatewayCore

@Suite struct LocalizationTests {
    @Test func builtInDefaultsComeFromTheResource() throws {
        let defaults = try LocalizationDefaults.builtIn()
        #expect(defaults.entries.count == 22)
        #expect(defaults.entries["miniapp.sdk.ios.error.message.invalid_app_id"] == "Provided Mini App ID is invalid.")
        #expect(
            defaults.entries["miniapp.sdk.ios.error.message.miniapp_meta_data_required_permisions_failure"]
                == "Mini App has not been granted all of the required permissions.")
        #expect(defaults.entries["miniapp.sdk.ios.alert.title.ok"] == "OK")
    }

    @Test func tagsNormalizeAndChainsFallBack() {
        #expect(LocaleTag.normalize("ja_jp") == "ja-JP")
        #expect(LocaleTag.normalize("zh-hant-tw") == "zh-Hant-TW")
        #expect(LocaleTag.normalize("j") == nil)
        #expect(LocaleTag.normalize("ja-") == nil)
        #expect(LocaleTag.fallbackChain(for: "ja-JP", tenantDefault: "fr-CA") == ["ja-JP", "ja", "fr-CA", "fr", "en"])
        #expect(LocaleTag.fallbackChain(for: "en-GB", tenantDefault: nil) == ["en-GB", "en"])
    }

    @Test(arguments: StoreBackend.available) func resolverAppliesTheFallbackChain(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.localization
        let resolver = LocalizationResolver(defaults: try LocalizationDefaults.builtIn(), store: store)
        let ok = "miniapp.sdk.ios.alert.title.ok"
        let cancel = "miniapp.sdk.ios.alert.title.cancel"
        let allow = "miniapp.sdk.ios.ui.allow"
        let save = "miniapp.sdk.all.ui.save"
        try await store.set([ok: "はい（JP）"], tenantID: "acme", locale: "ja-JP")
        try await store.set([ok: "はい", cancel: "キャンセル"], tenantID: "acme", locale: "ja")
        try await store.set([allow: "Autoriser", cancel: "Annuler"], tenantID: "acme", locale: "fr")
        try await store.set([save: "Save it"], tenantID: "acme", locale: "en")
        try await store.setDefaultLocale("fr", tenantID: "acme")

        let jaJP = try await resolver.bundle(tenantID: "acme", locale: "ja-jp")
        #expect(jaJP.chain == ["ja-JP", "ja", "fr", "en"])
        #expect(jaJP.entries[ok] == "はい（JP）")
        #expect(jaJP.entries[cancel] == "キャンセル")
        #expect(jaJP.entries[allow] == "Autoriser")
        #expect(jaJP.entries[save] == "Save it")
        #expect(jaJP.entries["miniapp.sdk.ios.error.message.download_failed"] == "Failed to download the mini app.")
        let ja = try await resolver.bundle(tenantID: "acme", locale: "ja")
        #expect(ja.entries[ok] == "はい")
        #expect(ja.etag != jaJP.etag)
        // Another tenant sees none of it.
        let beta = try await resolver.bundle(tenantID: "beta", locale: "ja-JP")
        #expect(beta.entries[ok] == "OK")
        #expect(beta.chain == ["ja-JP", "ja", "en"])
        await #expect(throws: LocalizationError.self) {
            try await resolver.bundle(tenantID: "acme", locale: "not a locale")
        }
    }

    @Test(arguments: StoreBackend.available) func etagAndCacheFollowChanges(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let (cache, client) = try TestCaches.make()
        defer { if let client { Task { await client.shutdown() } } }
        let store = fx.stores.localization
        let resolver = LocalizationResolver(defaults: try LocalizationDefaults.builtIn(), store: store)
        let cached = LocalizationBundleCache(cache: cache, resolver: resolver, store: store)
        let tenant = try await fx.tenant()
        let first = try await cached.bundle(tenant: tenant, locale: "ja")
        #expect(try await cached.bundle(tenant: tenant, locale: "ja") == first)
        let token = try await fx.stores.tenants.changeToken()
        try await store.set(["miniapp.sdk.ios.alert.title.ok": "はい"], tenantID: "acme", locale: "ja")
        #expect(try await fx.stores.tenants.changeToken() > token)
        let second = try await cached.bundle(tenant: tenant, locale: "ja")
        #expect(second.entries["miniapp.sdk.ios.alert.title.ok"] == "はい")
        #expect(second.etag != first.etag)
        #expect(try await store.unset(["miniapp.sdk.ios.alert.title.ok"], tenantID: "acme", locale: "ja") == 1)
        let third = try await cached.bundle(tenant: tenant, locale: "ja")
        #expect(third.etag == first.etag)
    }

    @Test(arguments: StoreBackend.available) func acceptLanguageNegotiation(backend: StoreBackend) async throws {
        let available: Set<String> = ["en", "ja", "fr-CA"]
        #expect(AcceptLanguage.negotiate("ja-JP,ja;q=0.9,en;q=0.8", available: available, fallback: "en") == "ja")
        #expect(AcceptLanguage.negotiate("de, fr;q=0.7, en;q=0.5", available: available, fallback: "en") == "fr-CA")
        #expect(AcceptLanguage.negotiate("en;q=0.1, ja;q=0.9", available: available, fallback: "en") == "ja")
        #expect(AcceptLanguage.negotiate("ja;q=0, de", available: available, fallback: "xx") == "xx")
        #expect(AcceptLanguage.negotiate(nil, available: available, fallback: "en") == "en")
        #expect(AcceptLanguage.negotiate("*", available: available, fallback: "fr-CA") == "fr-CA")
        #expect(AcceptLanguage.negotiate("garbage;;q=abc", available: available, fallback: "en") == "en")
        #expect(
            AcceptLanguage.parse("a-b-c-d-e, ja;q=0.5, en;q=0.5").map(\.tag)
                == ["a-b-c-d-e", "ja", "en"].compactMap(LocaleTag.normalize))

        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.localization
        let resolver = LocalizationResolver(defaults: try LocalizationDefaults.builtIn(), store: store)
        #expect(try await resolver.negotiate(tenantID: "acme", acceptLanguage: "ja-JP, en;q=0.5") == "en")
        try await store.set(["k": "v"], tenantID: "acme", locale: "ja")
        #expect(try await resolver.negotiate(tenantID: "acme", acceptLanguage: "ja-JP, en;q=0.5") == "ja")
    }
}
