import Foundation

/// A tenant's OAuth clients on the admin API (reads; registration stays on gatewayctl for now).
extension AdminService {
    /// The tenant's clients by id, after `cursor` (a client id), `limit` of them.
    public func clients(
        _ call: AdminCall, tenantID: String, cursor: String?, limit: Int
    ) async throws -> (items: [OAuthClient], next: String?) {
        try Self.checkLimit(limit)
        try await authorize(call, AdminPermission(.read, .client), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let all = try await clients.clients(tenantID: tenantID).sorted { $0.clientID < $1.clientID }
        return try Self.page(all, key: \.clientID, cursor: cursor, limit: limit)
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

/// Client registration and changes on the admin API, each recorded with its change.
extension AdminService {
    /// Registers a client; a confidential one without keys gets a secret, answered once
    /// (only its hash is stored).
    public func createClient(
        _ call: AdminCall, tenantID: String, clientID: String, confidential: Bool, patch: ClientPatch
    ) async throws -> (client: OAuthClient, secret: String?) {
        try await authorize(call, AdminPermission(.create, .client), tenantID: tenantID, resourceID: clientID)
        _ = try await requireTenant(tenantID)
        var client = patch.registering(tenantID: tenantID, clientID: clientID, confidential: confidential)
        let resource = AuditResource(type: .client, tenant: tenantID, id: clientID)
        do {
            try client.validate()
        } catch {
            try await refused(call, .create, resource, AuditOutcome(status: 422, code: "invalid_client_metadata"))
            throw AdminError.invalidClientMetadata("\(error)")
        }
        let secret = confidential && client.jwks == nil ? ClientSecret.generate() : nil
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        do {
            try await clients.addClients([NewClient(client, secretHash: secret?.hash)]) { stored in
                ClientTrail.draft(nil, stored, actor: actor, requestID: requestID, verb: .create, time: now)
            }
        } catch AuthStoreError.alreadyExists {
            try await refused(call, .create, resource, AuditOutcome(status: 409, code: "client_exists"))
            throw AdminError.clientExists(clientID)
        }
        client.revision = 1
        return (client, secret?.secret)
    }

    /// Applies `patch` to a client, at `revision` when given (`If-Match`).
    public func updateClient(
        _ call: AdminCall, tenantID: String, clientID: String, patch: ClientPatch, revision: Int64?
    ) async throws -> OAuthClient {
        try await authorize(call, AdminPermission(.update, .client), tenantID: tenantID, resourceID: clientID)
        let written = try await writeClient(call, tenantID: tenantID, clientID: clientID, verb: .update, revision: revision) {
            var client = $0
            patch.apply(to: &client)
            return client
        }
        guard let written else { throw AdminError.clientNotFound(clientID) }
        return written
    }

    /// Removes a client, at `revision` when given (`If-Match`).
    public func deleteClient(_ call: AdminCall, tenantID: String, clientID: String, revision: Int64?) async throws {
        try await authorize(call, AdminPermission(.delete, .client), tenantID: tenantID, resourceID: clientID)
        try await writeClient(call, tenantID: tenantID, clientID: clientID, verb: .delete, revision: revision) { _ in nil }
    }

    @discardableResult
    private func writeClient(
        _ call: AdminCall, tenantID: String, clientID: String, verb: AdminVerb, revision: Int64?,
        _ change: @escaping @Sendable (OAuthClient) throws -> OAuthClient?
    ) async throws -> OAuthClient? {
        _ = try await requireTenant(tenantID)
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        let resource = AuditResource(type: .client, tenant: tenantID, id: clientID)
        do {
            return try await clients.writeClient(
                tenantID: tenantID, clientID: clientID,
                trail: { old, new in ClientTrail.draft(old, new, actor: actor, requestID: requestID, verb: verb, time: now) }
            ) { current in
                if let revision, current.currentRevision != revision {
                    throw AdminError.preconditionFailed(current: current.currentRevision)
                }
                return try change(current)
            }
        } catch AuthStoreError.notFound {
            throw AdminError.clientNotFound(clientID)
        } catch AdminError.preconditionFailed(let current) {
            throw try await stale(call, verb, resource, current: current)
        } catch AuthStoreError.invalid(let reason) {
            try await refused(call, verb, resource, AuditOutcome(status: 422, code: "invalid_client_metadata"))
            throw AdminError.invalidClientMetadata(reason)
        }
    }
}
