import Foundation

/// A tenant's text overrides per locale, edited by operators.
public protocol LocalizationStore: Sendable {
    /// Sets every entry for `locale` or none (validated first). Returns the new state.
    /// `trail` (the keys' texts before and after, the versions) is appended to the operators'
    /// audit trail in the same transaction.
    @discardableResult
    func set(
        _ entries: [String: String], tenantID: String, locale: String, trail: LocalizationTrail.Texts?
    ) async throws -> LocalizationState
    /// Removes `keys` for `locale`; returns how many existed. `trail` as for ``set(_:tenantID:locale:trail:)``.
    @discardableResult
    func unset(_ keys: [String], tenantID: String, locale: String, trail: LocalizationTrail.Texts?) async throws -> Int
    /// Overrides of one locale (nil: all locales), sorted by locale then key.
    func overrides(tenantID: String, locale: String?) async throws -> [LocalizationOverride]
    /// The tenant's default locale and override version (bumped by every change).
    func state(tenantID: String) async throws -> LocalizationState
    /// Sets (or clears with nil) the tenant's default locale; `trail(before, after)` is
    /// appended in the same transaction.
    @discardableResult
    func setDefaultLocale(_ locale: String?, tenantID: String, trail: LocalizationTrail.Default?) async throws -> LocalizationState
}

extension LocalizationStore {
    /// Sets texts without an audit record.
    @discardableResult
    public func set(_ entries: [String: String], tenantID: String, locale: String) async throws -> LocalizationState {
        try await set(entries, tenantID: tenantID, locale: locale, trail: nil)
    }

    /// Removes texts without an audit record.
    @discardableResult
    public func unset(_ keys: [String], tenantID: String, locale: String) async throws -> Int {
        try await unset(keys, tenantID: tenantID, locale: locale, trail: nil)
    }

    /// Sets the default locale without an audit record.
    @discardableResult
    public func setDefaultLocale(_ locale: String?, tenantID: String) async throws -> LocalizationState {
        try await setDefaultLocale(locale, tenantID: tenantID, trail: nil)
    }
}

/// One override.
public struct LocalizationOverride: Sendable, Equatable, Codable {
    /// Canonical locale.
    public var locale: String
    /// SDK message key.
    public var key: String
    /// The text.
    public var value: String
    /// Last change.
    public var updatedAt: Date

    public init(locale: String, key: String, value: String, updatedAt: Date) {
        self.locale = locale
        self.key = key
        self.value = value
        self.updatedAt = updatedAt
    }
}

/// A tenant's localization settings.
public struct LocalizationState: Sendable, Equatable, Codable {
    /// Tried after the requested locale and before `en`.
    public var defaultLocale: String?
    /// Changes whenever an override or the default locale changes.
    public var version: Int64

    public init(defaultLocale: String? = nil, version: Int64 = 0) {
        self.defaultLocale = defaultLocale
        self.version = version
    }
}
