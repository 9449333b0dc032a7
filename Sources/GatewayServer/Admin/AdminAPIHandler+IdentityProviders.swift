import AdminAPI
import Foundation
import GatewayCore

/// A tenant's identity providers on the admin API.
extension AdminAPIHandler {
    func adminListIdentityProviders(
        _ input: Operations.AdminListIdentityProviders.Input
    ) async throws -> Operations.AdminListIdentityProviders.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.identityProviders(
            try AdminScope.call(), tenantID: input.path.tenant, cursor: input.query.cursor,
            limit: input.query.limit ?? 50)
        let items = try page.items.map { try Self.wire($0, as: Components.Schemas.IdentityProvider.self) }
        return .ok(.init(body: .json(.init(items: items, next: page.next))))
    }

    func adminGetIdentityProvider(
        _ input: Operations.AdminGetIdentityProvider.Input
    ) async throws -> Operations.AdminGetIdentityProvider.Output {
        try AdminInput.check(input.path.alias, max: 32, "alias")
        let found = try await service.identityProvider(
            try AdminScope.call(), tenantID: input.path.tenant, alias: input.path.alias)
        return .ok(.init(body: .json(try Self.wire(found, as: Components.Schemas.IdentityProvider.self))))
    }

    func adminAddIdentityProvider(
        _ input: Operations.AdminAddIdentityProvider.Input
    ) async throws -> Operations.AdminAddIdentityProvider.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        let bounds: [(String?, Int, String)] = [
            (body.alias, 32, "alias"), (body.displayName, 64, "displayName"), (body.issuer, 512, "issuer"),
            (body.clientID, 256, "clientID"), (body.clientSecret, 1024, "clientSecret"),
        ]
        for (value, max, name) in bounds { try AdminInput.check(value, max: max, name) }
        try AdminInput.check(body.scopes, maxItems: 20, "scopes")
        if body.scopes?.isEmpty == true { throw AdminError.badRequest("scopes has at least 1 item") }
        for scope in body.scopes ?? [] { try AdminInput.check(scope, max: 64, "a scope") }
        let provider = IdentityProvider(
            tenantID: input.path.tenant, alias: body.alias, displayName: body.displayName, issuer: body.issuer,
            clientID: body.clientID, clientSecret: body.clientSecret.map(SecretValue.init),
            scopes: body.scopes ?? ["openid", "profile", "email"],
            linkByVerifiedEmail: body.linkByVerifiedEmail ?? false,
            autoRedirect: body.autoRedirect ?? false)
        let stored = try await service.addIdentityProvider(try AdminScope.call(), tenantID: input.path.tenant, provider)
        return .created(.init(body: .json(try Self.wire(stored, as: Components.Schemas.IdentityProvider.self))))
    }

    func adminDeleteIdentityProvider(
        _ input: Operations.AdminDeleteIdentityProvider.Input
    ) async throws -> Operations.AdminDeleteIdentityProvider.Output {
        try AdminInput.check(input.path.alias, max: 32, "alias")
        try await service.removeIdentityProvider(
            try AdminScope.call(), tenantID: input.path.tenant, alias: input.path.alias)
        return .noContent(.init())
    }
}
