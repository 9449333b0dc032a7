import AdminAPI
import Foundation
import GatewayCore

/// A tenant's text overrides and default locale on the admin API.
extension AdminAPIHandler {
    func adminListLocalization(
        _ input: Operations.AdminListLocalization.Input
    ) async throws -> Operations.AdminListLocalization.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        try AdminInput.check(input.query.locale, max: 35, "locale")
        let page = try await service.localization(
            try AdminScope.call(), tenantID: input.path.tenant, locale: input.query.locale, cursor: input.query.cursor,
            limit: input.query.limit ?? 50)
        return .ok(.init(body: .json(try Self.wire(page, as: Components.Schemas.LocalizationPage.self))))
    }

    func adminSetTexts(_ input: Operations.AdminSetTexts.Input) async throws -> Operations.AdminSetTexts.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(input.path.locale, max: 35, "locale")
        let texts = body.texts.additionalProperties
        for (key, text) in texts {
            try AdminInput.check(key, max: 200, "a key")
            try AdminInput.check(text, max: 10_000, "a text", empty: true)
        }
        let report = try await service.setTexts(
            try AdminScope.call(), tenantID: input.path.tenant, locale: input.path.locale, texts)
        return .ok(.init(body: .json(try Self.wire(report, as: Components.Schemas.LocalizationTextsReport.self))))
    }

    func adminUnsetTexts(_ input: Operations.AdminUnsetTexts.Input) async throws -> Operations.AdminUnsetTexts.Output {
        try AdminInput.check(input.path.locale, max: 35, "locale")
        try AdminInput.check(input.query.key, maxItems: 100, "key")
        for key in input.query.key { try AdminInput.check(key, max: 200, "a key") }
        let removal = try await service.unsetTexts(
            try AdminScope.call(), tenantID: input.path.tenant, locale: input.path.locale, keys: input.query.key)
        return .ok(.init(body: .json(try Self.wire(removal, as: Components.Schemas.LocalizationRemoval.self))))
    }

    func adminSetDefaultLocale(
        _ input: Operations.AdminSetDefaultLocale.Input
    ) async throws -> Operations.AdminSetDefaultLocale.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(body.locale, max: 35, "locale")
        let state = try await service.setDefaultLocale(
            try AdminScope.call(), tenantID: input.path.tenant, locale: body.locale)
        return .ok(.init(body: .json(try Self.wire(state, as: Components.Schemas.LocalizationState.self))))
    }

    func adminClearDefaultLocale(
        _ input: Operations.AdminClearDefaultLocale.Input
    ) async throws -> Operations.AdminClearDefaultLocale.Output {
        let state = try await service.setDefaultLocale(try AdminScope.call(), tenantID: input.path.tenant, locale: nil)
        return .ok(.init(body: .json(try Self.wire(state, as: Components.Schemas.LocalizationState.self))))
    }
}
