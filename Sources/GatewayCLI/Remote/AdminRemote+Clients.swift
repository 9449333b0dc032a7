import AdminAPI
import Foundation
import GatewayCore

/// Client commands over the admin API.
extension AdminRemote {
    /// Every client of the tenant, paging through the API 500 at a time.
    func clients(tenantID: String) async throws -> [OAuthClient] {
        try await Self.all([OAuthClient].self) { cursor in
            let output = try await client.adminListClients(
                path: .init(tenant: tenantID), query: .init(cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            return (page.items, page.next)
        }
    }

    func oauthClient(tenantID: String, clientID: String) async throws -> OAuthClient {
        let output = try await client.adminGetClient(path: .init(tenant: tenantID, client: clientID))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: OAuthClient.self)
    }
}

/// Client registration and changes over the admin API.
extension AdminRemote {
    /// Registers a client; the secret (when it has one) comes back this once.
    func addClient(tenantID: String, clientID: String, confidential: Bool, patch: ClientPatch) async throws -> (OAuthClient, String?) {
        guard case .object(var members) = try JSONCoding.decoder().decode(JSONValue.self, from: JSONCoding.encoder().encode(patch))
        else { throw CLIError.failure("the client settings are not a JSON object") }
        (members["clientID"], members["confidential"]) = (.string(clientID), .bool(confidential))
        let body = try Self.document(JSONValue.object(members), as: Components.Schemas.ClientCreate.self)
        let output = try await client.adminCreateClient(path: .init(tenant: tenantID), body: .json(body))
        guard case .created(let created) = output else { throw Self.refusal(output) }
        let answer = try created.body.json
        return (try Self.document(answer.client, as: OAuthClient.self), answer.clientSecret)
    }

    /// Applies `patch` at the revision the caller read.
    func updateClient(tenantID: String, clientID: String, patch: ClientPatch, revision: Int64) async throws -> OAuthClient {
        let output = try await client.adminPatchClient(
            path: .init(tenant: tenantID, client: clientID), headers: .init(ifMatch: "\"\(revision)\""),
            body: .applicationMergePatchJson(try Self.document(patch, as: Components.Schemas.ClientPatch.self)))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: OAuthClient.self)
    }

    func removeClient(tenantID: String, clientID: String) async throws {
        let output = try await client.adminDeleteClient(path: .init(tenant: tenantID, client: clientID))
        guard case .noContent = output else { throw Self.refusal(output) }
    }
}
