import Foundation

/// A tenant's overrides of the mini-app SDK texts on the admin API, per locale, and its default
/// locale. Every write bumps the tenant's localization version (gateways and clients refetch).
extension AdminService {
    /// One page of the tenant's overrides (of `locale` only when given), by locale then key.
    public func localization(
        _ call: AdminCall, tenantID: String, locale: String?, cursor: String?, limit: Int
    ) async throws -> LocalizationPage {
        try await authorize(call, AdminPermission(.read, .localization), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let all: [LocalizationOverride]
        do {
            all = try await localization.overrides(tenantID: tenantID, locale: locale)
        } catch let error as LocalizationError {
            throw AdminError.badRequest(error.description)
        }
        let page = try Self.page(all, key: LocalizationPage.cursor, cursor: cursor, limit: limit)
        return LocalizationPage(
            items: page.items, next: page.next, state: try await localization.state(tenantID: tenantID))
    }

    /// Sets texts of `locale` (all or none). A locale, key or text the rules refuse answers 422
    /// `invalid_localization`, recorded, nothing written.
    public func setTexts(
        _ call: AdminCall, tenantID: String, locale: String, _ texts: [String: String]
    ) async throws -> LocalizationTextsReport {
        try await authorize(call, AdminPermission(.update, .localization), tenantID: tenantID, resourceID: locale)
        _ = try await requireTenant(tenantID)
        let trail = LocalizationTrail.texts(
            tenantID: tenantID, actor: call.actor, requestID: call.requestID, time: clock.now())
        let state = try await refusingInvalid(call, tenantID: tenantID, locale: locale) {
            guard !texts.isEmpty else {
                throw LocalizationError.invalidValue(key: "texts", reason: "give at least one text")
            }
            return try await localization.set(texts, tenantID: tenantID, locale: locale, trail: trail)
        }
        return LocalizationTextsReport(
            tenant: tenantID, locale: LocaleTag.normalize(locale) ?? locale, keys: texts.keys.sorted(),
            version: state.version)
    }

    /// Removes texts of `locale` (back to the fallback); answers how many there were.
    public func unsetTexts(
        _ call: AdminCall, tenantID: String, locale: String, keys: [String]
    ) async throws -> LocalizationRemoval {
        try await authorize(call, AdminPermission(.update, .localization), tenantID: tenantID, resourceID: locale)
        _ = try await requireTenant(tenantID)
        let trail = LocalizationTrail.texts(
            tenantID: tenantID, actor: call.actor, requestID: call.requestID, time: clock.now())
        let removed = try await refusingInvalid(call, tenantID: tenantID, locale: locale) {
            guard !keys.isEmpty else { throw LocalizationError.invalidKey("") }
            for key in keys { try LocalizationError.check(key: key) }
            return try await localization.unset(keys, tenantID: tenantID, locale: locale, trail: trail)
        }
        return LocalizationRemoval(removed: removed)
    }

    /// Sets (nil: clears) the tenant's default locale, tried before `en`.
    public func setDefaultLocale(_ call: AdminCall, tenantID: String, locale: String?) async throws -> LocalizationState
    {
        try await authorize(
            call, AdminPermission(.update, .localization), tenantID: tenantID, resourceID: "default-locale")
        _ = try await requireTenant(tenantID)
        let trail = LocalizationTrail.defaultLocale(
            tenantID: tenantID, actor: call.actor, requestID: call.requestID, time: clock.now())
        return try await refusingInvalid(call, tenantID: tenantID, locale: "default-locale") {
            try await localization.setDefaultLocale(locale, tenantID: tenantID, trail: trail)
        }
    }

    /// Runs `write`, turning what the localization rules refuse into a recorded 422.
    private func refusingInvalid<T>(
        _ call: AdminCall, tenantID: String, locale: String, _ write: () async throws -> T
    ) async throws -> T {
        do {
            return try await write()
        } catch let error as LocalizationError {
            try await refused(
                call, .update, AuditResource(type: .localization, tenant: tenantID, id: String(locale.prefix(64))),
                AuditOutcome(status: 422, code: "invalid_localization"))
            throw AdminError.invalidLocalization(error.description)
        }
    }
}
