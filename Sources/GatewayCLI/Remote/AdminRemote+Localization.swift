import AdminAPI
import Foundation
import GatewayCore

/// Localization commands over the admin API.
extension AdminRemote {
    func localization(tenantID: String, locale: String?) async throws -> [LocalizationOverride] {
        try await Self.all([LocalizationOverride].self) { cursor in
            let output = try await client.adminListLocalization(
                path: .init(tenant: tenantID), query: .init(locale: locale, cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            return (page.items, page.next)
        }
    }

    func setTexts(tenantID: String, locale: String, _ texts: [String: String]) async throws -> LocalizationTextsReport {
        let output = try await client.adminSetTexts(
            path: .init(tenant: tenantID, locale: locale), body: .json(.init(texts: .init(additionalProperties: texts)))
        )
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: LocalizationTextsReport.self)
    }

    func unsetTexts(tenantID: String, locale: String, keys: [String]) async throws -> LocalizationRemoval {
        let output = try await client.adminUnsetTexts(
            path: .init(tenant: tenantID, locale: locale), query: .init(key: keys))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: LocalizationRemoval.self)
    }

    func setDefaultLocale(tenantID: String, locale: String?) async throws -> LocalizationState {
        if let locale {
            let output = try await client.adminSetDefaultLocale(
                path: .init(tenant: tenantID), body: .json(.init(locale: locale)))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            return try Self.document(try ok.body.json, as: LocalizationState.self)
        }
        let output = try await client.adminClearDefaultLocale(path: .init(tenant: tenantID))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: LocalizationState.self)
    }
}
