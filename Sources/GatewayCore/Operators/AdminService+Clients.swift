import Foundation

/// A tenant's OAuth clients on the admin API (reads; registration stays on gatewayctl for now).
extension AdminService {
    /// The tenant's clients by id, after `cursor` (a client id), `limit` of them.
    public func clients(
        _ call: AdminCall, tenantID: String, cursor: String?, limit: Int
    ) async throws -> (items: [OAuthClient], next: String?) {
        guard (1...AuditQuery.maxLimit).contains(limit) else { throw AdminError.badRequest("limit must be 1-500") }
        try await authorize(call, AdminPermission(.read, .client), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let after = try await clients.clients(tenantID: tenantID).sorted { $0.clientID < $1.clientID }
            .filter { client in cursor.map { client.clientID > $0 } ?? true }
        let page = Array(after.prefix(limit))
        return (page, after.count > limit ? page.last?.clientID : nil)
    }

    /// One client of the tenant (404 `client_not_found`: none of that id).
    public func client(_ call: AdminCall, tenantID: String, clientID: String) async throws -> OAuthClient {
        try await authorize(call, AdminPermission(.read, .client), tenantID: tenantID, resourceID: clientID)
        _ = try await requireTenant(tenantID)
        guard let found = try await clients.client(tenantID: tenantID, clientID: clientID) else {
            throw AdminError.clientNotFound(clientID)
        }
        return found
    }
}
