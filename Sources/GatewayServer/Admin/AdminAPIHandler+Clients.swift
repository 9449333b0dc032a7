import AdminAPI
import Foundation
import GatewayCore

/// A tenant's OAuth clients on the admin API, in the shape `gatewayctl client show --json`
/// prints (never a secret: only its hash is stored).
extension AdminAPIHandler {
    func adminListClients(_ input: Operations.AdminListClients.Input) async throws -> Operations.AdminListClients.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.clients(
            try AdminScope.call(), tenantID: input.path.tenant, cursor: input.query.cursor, limit: input.query.limit ?? 50)
        return .ok(
            .init(
                body: .json(
                    .init(items: try page.items.map { try Self.wire($0, as: Components.Schemas.OAuthClient.self) }, next: page.next))))
    }

    func adminGetClient(_ input: Operations.AdminGetClient.Input) async throws -> Operations.AdminGetClient.Output {
        try AdminInput.check(input.path.client, max: 128, "client")
        let client = try await service.client(try AdminScope.call(), tenantID: input.path.tenant, clientID: input.path.client)
        return .ok(
            .init(
                headers: .init(eTag: Self.etag(client.currentRevision)),
                body: .json(try Self.wire(client, as: Components.Schemas.OAuthClient.self))))
    }
}

/// Client registration and changes on the admin API.
extension AdminAPIHandler {
    func adminCreateClient(_ input: Operations.AdminCreateClient.Input) async throws -> Operations.AdminCreateClient.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(body.clientID, max: 128, "clientID")
        let patch = try Self.clientPatch(body)
        let created = try await service.createClient(
            try AdminScope.call(), tenantID: input.path.tenant, clientID: body.clientID,
            confidential: body.confidential ?? false, patch: patch)
        return .created(
            .init(
                headers: .init(eTag: Self.etag(created.client.currentRevision)),
                body: .json(
                    .init(
                        client: try Self.wire(created.client, as: Components.Schemas.OAuthClient.self),
                        clientSecret: created.secret))))
    }

    func adminPatchClient(_ input: Operations.AdminPatchClient.Input) async throws -> Operations.AdminPatchClient.Output {
        guard case .applicationMergePatchJson(let body) = input.body else { throw AdminError.badRequest("a merge patch body") }
        try AdminInput.check(input.path.client, max: 128, "client")
        let patch = try Self.clientPatch(body)
        guard !patch.isEmpty else { throw AdminError.badRequest("the patch names no setting") }
        let client = try await service.updateClient(
            try AdminScope.call(), tenantID: input.path.tenant, clientID: input.path.client, patch: patch,
            revision: try input.headers.ifMatch.map(Self.revision))
        return .ok(
            .init(
                headers: .init(eTag: Self.etag(client.currentRevision)),
                body: .json(try Self.wire(client, as: Components.Schemas.OAuthClient.self))))
    }

    func adminDeleteClient(_ input: Operations.AdminDeleteClient.Input) async throws -> Operations.AdminDeleteClient.Output {
        try AdminInput.check(input.path.client, max: 128, "client")
        try await service.deleteClient(
            try AdminScope.call(), tenantID: input.path.tenant, clientID: input.path.client,
            revision: try input.headers.ifMatch.map(Self.revision))
        return .noContent(.init())
    }

    /// The settings a create or patch body names (same member names, through JSON), the
    /// contract's bounds checked first (400).
    static func clientPatch(_ body: some Encodable) throws -> ClientPatch {
        let patch = try wire(body, as: ClientPatch.self)
        let lists: [([String]?, Int, Int, String)] = [
            (patch.redirectURIs, 50, 2048, "redirectURIs"), (patch.postLogoutRedirectURIs, 50, 2048, "postLogoutRedirectURIs"),
            (patch.allowedScopes, 100, 256, "allowedScopes"), (patch.defaultScopes, 100, 256, "defaultScopes"),
            (patch.grantTypes, 10, 128, "grantTypes"),
            (patch.miniApps, 100, 128, "miniApps"),
        ]
        for (values, maxItems, maxLength, name) in lists {
            try AdminInput.check(values, maxItems: maxItems, name)
            for value in values ?? [] { try AdminInput.check(value, max: maxLength, "an item of \(name)") }
        }
        return patch
    }
}
