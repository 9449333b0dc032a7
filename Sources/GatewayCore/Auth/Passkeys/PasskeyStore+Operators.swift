import Foundation

/// What operators do to a user's passkeys, on either path (the admin API's ``AdminService``
/// and `gatewayctl user passkeys` on the database): see them, and remove one (a lost phone),
/// recorded in the tenant's audit trail with the operator as actor. Unlike My account, an
/// operator may remove a user's last passkey: the user then recovers the account or is given a
/// password.
extension PasskeyStore {
    /// `user`'s passkeys as operators see them (never a key), oldest first.
    public func passkeyDocuments(of user: LocalUser) async throws -> [PasskeyDocument] {
        try await passkeys(tenantID: user.tenantID, subject: user.subject).map(PasskeyDocument.init)
    }

    /// Removes the passkey `passkeyID` (its credential ID, base64url) of `user`, the record
    /// naming `actor`; nil when the user holds none by that ID (nothing written).
    public func removePasskey(
        of user: LocalUser, passkeyID: String, actor: AuditActor, requestID: String?, time: Date
    ) async throws -> PasskeyDocument? {
        guard passkeyID.utf8.count <= 1_400, let credentialID = Base64URL.decode(passkeyID),
            let passkey = try await passkey(tenantID: user.tenantID, credentialID: Array(credentialID)),
            passkey.subject == user.subject
        else { return nil }
        var draft = UserTrail.draft(user, user, actor: actor, requestID: requestID, verb: .delete, time: time)
        draft.note = AuditNote(action: "passkey.remove", summary: "removed the passkey \(passkey.name)")
        do {
            try await removePasskey(
                tenantID: user.tenantID, subject: user.subject, credentialID: passkey.credentialID, trail: draft)
        } catch AuthStoreError.notFound {
            return nil
        }
        return PasskeyDocument(passkey)
    }
}

/// A passkey as operators see it (admin API `UserPasskey`, `gatewayctl user passkeys list
/// --json`): what it is called and when it was used, never its key.
public struct PasskeyDocument: Sendable, Equatable, Codable {
    /// The credential ID, base64url.
    public var id: String
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// Whether the authenticator says it is backed up (synced).
    public var backedUp: Bool

    public init(_ passkey: StoredPasskey) {
        id = Base64URL.encode(passkey.credentialID)
        name = passkey.name
        createdAt = passkey.createdAt
        lastUsedAt = passkey.lastUsedAt
        backedUp = passkey.backedUp
    }
}
