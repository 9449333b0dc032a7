import Foundation

/// A user's passkeys on the admin API (issue 64): operators see them and remove one; what is
/// done is the store's (``PasskeyStore/removePasskey(of:passkeyID:actor:requestID:time:)``),
/// shared with gatewayctl on the database.
extension AdminService {
    /// The user's passkeys, oldest first (their keys never). Needs `user:read`.
    public func userPasskeys(_ call: AdminCall, tenantID: String, username: String) async throws -> [PasskeyDocument] {
        try await authorize(call, AdminPermission(.read, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        return try await users.passkeyDocuments(of: try await passkeyHolder(tenantID: tenantID, username: username))
    }

    /// Removes one of the user's passkeys (`passkeyID`: its credential ID, base64url); 404
    /// `passkey_not_found` for one the user does not hold. Needs `user:update`.
    public func removeUserPasskey(
        _ call: AdminCall, tenantID: String, username: String, passkeyID: String
    ) async throws {
        try await authorize(call, AdminPermission(.update, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        let user = try await passkeyHolder(tenantID: tenantID, username: username)
        let removed = try await users.removePasskey(
            of: user, passkeyID: passkeyID, actor: call.actor, requestID: call.requestID, time: clock.now())
        if removed == nil { throw AdminError.passkeyNotFound(passkeyID) }
    }

    private func passkeyHolder(tenantID: String, username: String) async throws -> LocalUser {
        guard let user = try await users.user(tenantID: tenantID, username: username) else {
            throw AdminError.userNotFound(username)
        }
        return user
    }
}
