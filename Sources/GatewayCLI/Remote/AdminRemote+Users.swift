import AdminAPI
import Foundation
import GatewayCore

/// User commands over the admin API.
extension AdminRemote {
    /// Every user of the tenant by username, paging 500 at a time.
    func users(tenantID: String) async throws -> [UserDocument] {
        try await Self.all([UserDocument].self) { cursor in
            let output = try await client.adminListUsers(
                path: .init(tenant: tenantID), query: .init(cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            return (page.items, page.next)
        }
    }

    func user(tenantID: String, username: String) async throws -> UserDocument {
        let output = try await client.adminGetUser(path: .init(tenant: tenantID, username: username))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: UserDocument.self)
    }

    func addUser(tenantID: String, username: String, password: String, profile: UserPatch) async throws -> UserDocument {
        let body = Components.Schemas.UserCreate(
            username: username, password: password, name: profile.name, email: profile.email, phone: profile.phone,
            picture: profile.picture)
        let output = try await client.adminCreateUser(path: .init(tenant: tenantID), body: .json(body))
        guard case .created(let created) = output else { throw Self.refusal(output) }
        return try Self.document(try created.body.json, as: UserDocument.self)
    }

    /// Applies `patch` at the revision the caller read.
    func updateUser(tenantID: String, username: String, patch: UserPatch, revision: Int64) async throws -> UserDocument {
        let output = try await client.adminPatchUser(
            path: .init(tenant: tenantID, username: username), headers: .init(ifMatch: "\"\(revision)\""),
            body: .applicationMergePatchJson(try Self.document(patch, as: Components.Schemas.UserPatch.self)))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: UserDocument.self)
    }

    func setUserDisabled(tenantID: String, username: String, disabled: Bool) async throws -> UserStateChange {
        let output = try await client.adminUserAction(
            path: .init(tenant: tenantID, username: username), body: .json(.init(action: disabled ? .disable : .enable)))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: UserStateChange.self)
    }

    func eraseUser(tenantID: String, username: String) async throws -> UserErasureReport {
        let output = try await client.adminDeleteUser(path: .init(tenant: tenantID, username: username))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: UserErasureReport.self)
    }
}

/// A user's passkeys over the admin API.
extension AdminRemote {
    func userPasskeys(tenantID: String, username: String) async throws -> [PasskeyDocument] {
        let output = try await client.adminListUserPasskeys(path: .init(tenant: tenantID, username: username))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json.items, as: [PasskeyDocument].self)
    }

    func removeUserPasskey(tenantID: String, username: String, passkeyID: String) async throws {
        let output = try await client.adminRemoveUserPasskey(
            path: .init(tenant: tenantID, username: username, passkeyId: passkeyID))
        guard case .noContent = output else { throw Self.refusal(output) }
    }
}
