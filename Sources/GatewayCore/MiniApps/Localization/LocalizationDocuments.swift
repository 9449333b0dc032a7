import Foundation

/// One page of a tenant's text overrides as operators read them, with the tenant's default
/// locale and localization version.
public struct LocalizationPage: Sendable, Codable, Equatable {
    public var items: [LocalizationOverride]
    public var next: String?
    public var defaultLocale: String?
    public var version: Int64

    public init(items: [LocalizationOverride], next: String?, state: LocalizationState) {
        self.items = items
        self.next = next
        self.defaultLocale = state.defaultLocale
        self.version = state.version
    }

    /// A page's cursor for `item`: its locale and key, a space between (a space sorts before
    /// every character a locale or key may hold, so cursors order as the overrides do).
    public static func cursor(_ item: LocalizationOverride) -> String { item.locale + " " + item.key }
}

/// What a text write reports (`gatewayctl l10n set|import --json`, the admin API).
public struct LocalizationTextsReport: Sendable, Codable, Equatable {
    public var tenant: String
    public var locale: String
    public var keys: [String]
    public var version: Int64

    public init(tenant: String, locale: String, keys: [String], version: Int64) {
        self.tenant = tenant
        self.locale = locale
        self.keys = keys
        self.version = version
    }
}

/// What a text removal reports (`gatewayctl l10n unset --json`, the admin API).
public struct LocalizationRemoval: Sendable, Codable, Equatable {
    public var removed: Int

    public init(removed: Int) {
        self.removed = removed
    }
}
