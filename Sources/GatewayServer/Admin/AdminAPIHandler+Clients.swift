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
        return .ok(.init(body: .json(try Self.wire(client, as: Components.Schemas.OAuthClient.self))))
    }
}
