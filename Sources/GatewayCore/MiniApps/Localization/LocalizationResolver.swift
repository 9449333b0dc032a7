import Crypto
import Foundation

/// The texts of one locale for one tenant, after fallback.
public struct LocalizationBundle: Sendable, Equatable, Codable {
    /// The requested locale, normalized.
    public var locale: String
    /// Locales consulted, most specific first, ending in `en`.
    public var chain: [String]
    /// Key → text.
    public var entries: [String: String]
    /// A strong ETag (quoted) derived from `locale` and `entries`: equal contents, equal tag.
    public var etag: String

    public init(locale: String, chain: [String], entries: [String: String]) {
        self.locale = locale
        self.chain = chain
        self.entries = entries
        self.etag = Self.etag(locale: locale, entries: entries)
    }

    static func etag(locale: String, entries: [String: String]) -> String {
        var hasher = SHA256()
        hasher.update(data: Data(locale.utf8))
        for key in entries.keys.sorted() {
            hasher.update(data: Data(UserMiniAppKey.canonical([key, entries[key] ?? ""]).utf8))
        }
        return "\"l10n-" + LowercaseHex.string(hasher.finalize().prefix(16)) + "\""
    }
}

/// Resolves bundles: built-in English defaults, overlaid by the tenant's overrides
/// along `requested → its truncations → tenant default → en`, the most specific winning.
public struct LocalizationResolver: Sendable {
    private let defaults: LocalizationDefaults
    private let store: any LocalizationStore

    public init(defaults: LocalizationDefaults, store: any LocalizationStore) {
        self.defaults = defaults
        self.store = store
    }

    /// The bundle for `locale` (throws ``LocalizationError/invalidLocale(_:)`` for a bad tag).
    public func bundle(tenantID: String, locale: String) async throws -> LocalizationBundle {
        let locale = try LocalizationError.locale(locale)
        let state = try await store.state(tenantID: tenantID)
        let chain = LocaleTag.fallbackChain(for: locale, tenantDefault: state.defaultLocale)
        var byLocale: [String: [String: String]] = [:]
        for item in try await store.overrides(tenantID: tenantID, locale: nil) where chain.contains(item.locale) {
            byLocale[item.locale, default: [:]][item.key] = item.value
        }
        return LocalizationBundle(
            locale: locale, chain: chain, entries: Self.merge(defaults.entries, byLocale, chain: chain))
    }

    /// The tenant's overrides whose key starts with one of `keyPrefixes`, by primary language
    /// (`ja-JP` and `ja` both land under `ja`, the exact `ja` tag winning), no fallback applied.
    public func overridesByLanguage(tenantID: String, keyPrefixes: [String]) async throws -> [String: [String: String]] {
        var byLanguage: [String: [String: String]] = [:]
        let items = try await store.overrides(tenantID: tenantID, locale: nil).filter { item in
            keyPrefixes.contains { item.key.hasPrefix($0) }
        }
        // Region tags first, so the bare language tag (applied last) wins a conflict.
        for item in items.sorted(by: { $0.locale.count > $1.locale.count }) {
            let language = item.locale.split(separator: "-").first.map { $0.lowercased() } ?? item.locale
            byLanguage[language, default: [:]][item.key] = item.value
        }
        return byLanguage
    }

    /// The locale to serve for an `Accept-Language` header: the best tenant locale
    /// (those with overrides, the default, `en`), else the tenant default, else `en`.
    public func negotiate(tenantID: String, acceptLanguage: String?) async throws -> String {
        let state = try await store.state(tenantID: tenantID)
        var available = Set(try await store.overrides(tenantID: tenantID, locale: nil).map(\.locale))
        available.insert(LocaleTag.english)
        if let tenantDefault = state.defaultLocale { available.insert(tenantDefault) }
        return AcceptLanguage.negotiate(
            acceptLanguage, available: available, fallback: state.defaultLocale ?? LocaleTag.english)
    }

    /// Applies layers from least to most specific.
    static func merge(
        _ base: [String: String], _ byLocale: [String: [String: String]], chain: [String]
    ) -> [String: String] {
        var entries = base
        for locale in chain.reversed() {
            entries.merge(byLocale[locale] ?? [:]) { _, override in override }
        }
        return entries
    }
}

/// Keeps resolved bundles in a ``Cache`` under the tenant's localization version, so
/// any override change (new version) is served at once.
public struct LocalizationBundleCache: Sendable {
    private let cache: any Cache
    private let resolver: LocalizationResolver
    private let store: any LocalizationStore

    public init(cache: any Cache, resolver: LocalizationResolver, store: any LocalizationStore) {
        self.cache = cache
        self.resolver = resolver
        self.store = store
    }

    /// The bundle for `locale`, from the cache when its version is current. `ttl` from the
    /// tenant's `cacheTTLs.localizationSeconds`.
    public func bundle(tenant: Tenant, locale: String) async throws -> LocalizationBundle {
        let normalized = try LocalizationError.locale(locale)
        let version = try await store.state(tenantID: tenant.id).version
        let key = "l10n:\(tenant.id):\(version):\(normalized)"
        if let bytes = try? await cache.get(key),
            let hit = try? JSONDecoder().decode(LocalizationBundle.self, from: Data(bytes))
        {
            return hit
        }
        let bundle = try await resolver.bundle(tenantID: tenant.id, locale: normalized)
        if let data = try? JSONEncoder().encode(bundle) {
            try? await cache.set(key, Array(data), ttl: .seconds(max(1, tenant.cacheTTLs.localizationSeconds)))
        }
        return bundle
    }
}
