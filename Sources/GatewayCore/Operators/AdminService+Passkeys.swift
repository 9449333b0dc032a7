import Foundation

/// A user's passkeys on the admin API (issue 64): operators see them and remove one (a lost
/// phone); removing is recorded in the tenant's audit trail with the operator as actor. Unlike
/// My account, an operator may remove a user's last passkey: the user then recovers the account
/// or is given a password.
extension AdminService {
    /// The user's passkeys, oldest first (their keys never). Needs `user:read`.
    public func userPasskeys(_ call: AdminCall, tenantID: String, username: String) async throws -> [StoredPasskey] {
        try await authorize(call, AdminPermission(.read, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        let user = try await passkeyHolder(tenantID: tenantID, username: username)
        return try await users.passkeys(tenantID: tenantID, subject: user.subject)
    }

    /// Removes one of the user's passkeys (`passkeyID`: its credential ID, base64url); 404
    /// `passkey_not_found` for one the user does not hold. Needs `user:update`.
    public func removeUserPasskey(
        _ call: AdminCall, tenantID: String, username: String, passkeyID: String
    ) async throws {
        try await authorize(call, AdminPermission(.update, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        let user = try await passkeyHolder(tenantID: tenantID, username: username)
        guard passkeyID.utf8.count <= 1_400, let credentialID = Base64URL.decode(passkeyID),
            let passkey = try await users.passkey(tenantID: tenantID, credentialID: Array(credentialID)),
            passkey.subject == user.subject
        else { throw AdminError.passkeyNotFound(passkeyID) }
        var draft = UserTrail.draft(
            user, user, actor: call.actor, requestID: call.requestID, verb: .delete, time: clock.now())
        draft.note = AuditNote(action: "passkey.remove", summary: "removed the passkey \(passkey.name)")
        do {
            try await users.removePasskey(
                tenantID: tenantID, subject: user.subject, credentialID: passkey.credentialID, trail: draft)
        } catch AuthStoreError.notFound {
            throw AdminError.passkeyNotFound(passkeyID)
        }
    }

    private func passkeyHolder(tenantID: String, username: String) async throws -> LocalUser {
        guard let user = try await users.user(tenantID: tenantID, username: username) else {
            throw AdminError.userNotFound(username)
        }
        return user
    }
}
