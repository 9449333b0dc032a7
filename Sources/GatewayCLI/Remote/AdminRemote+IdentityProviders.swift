import AdminAPI
import Foundation
import GatewayCore

/// Identity-provider commands over the admin API (the client secret goes in, never comes back).
extension AdminRemote {
    func identityProviders(tenantID: String) async throws -> [IdentityProviderDocument] {
        try await Self.all([IdentityProviderDocument].self) { cursor in
            let output = try await client.adminListIdentityProviders(
                path: .init(tenant: tenantID), query: .init(cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            return (page.items, page.next)
        }
    }

    func addIdentityProvider(
        tenantID: String, _ body: Components.Schemas.IdentityProviderCreate
    ) async throws -> IdentityProviderDocument {
        let output = try await client.adminAddIdentityProvider(path: .init(tenant: tenantID), body: .json(body))
        guard case .created(let created) = output else { throw Self.refusal(output) }
        return try Self.document(try created.body.json, as: IdentityProviderDocument.self)
    }

    func removeIdentityProvider(tenantID: String, alias: String) async throws {
        let output = try await client.adminDeleteIdentityProvider(path: .init(tenant: tenantID, alias: alias))
        guard case .noContent = output else { throw Self.refusal(output) }
    }
}
