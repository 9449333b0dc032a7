import AdminAPI
import Foundation
import GatewayCore

/// Client commands over the admin API.
extension AdminRemote {
    /// Every client of the tenant, paging through the API 500 at a time.
    func clients(tenantID: String) async throws -> [OAuthClient] {
        var found: [OAuthClient] = []
        var cursor: String?
        repeat {
            let output = try await client.adminListClients(
                path: .init(tenant: tenantID), query: .init(cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            found += try Self.document(page.items, as: [OAuthClient].self)
            cursor = page.next
        } while cursor != nil
        return found
    }

    func oauthClient(tenantID: String, clientID: String) async throws -> OAuthClient {
        let output = try await client.adminGetClient(path: .init(tenant: tenantID, client: clientID))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: OAuthClient.self)
    }
}
