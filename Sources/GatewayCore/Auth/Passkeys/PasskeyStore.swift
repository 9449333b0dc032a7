import Foundation

/// Where users' passkeys are kept (`auth_passkeys`), beside the accounts they belong to;
/// they go with the account when it is erased (``UserErasure/tables``). Every change that
/// takes a `trail` appends it to the audit trail in the same transaction.
public protocol PasskeyStore: Sendable {
    /// Adds `passkey`. Throws `alreadyExists` when its credential ID is registered in the
    /// tenant already (to anyone), `invalid` when the user holds
    /// ``StoredPasskey/maximumPerUser`` passkeys.
    func addPasskey(_ passkey: StoredPasskey, trail: AuditDraft?) async throws
    /// Writes a new account `user` and its first passkey in one transaction (a sign-up without
    /// a password: the account never exists without its way in), each with its audit record.
    /// Throws `alreadyExists` for a taken username, subject or credential ID; nothing is
    /// written then.
    func addUser(
        _ user: LocalUser, holding passkey: StoredPasskey, userTrail: (@Sendable (LocalUser) -> AuditDraft)?,
        passkeyTrail: AuditDraft?
    ) async throws
    /// The passkey with `credentialID` in `tenantID`.
    func passkey(tenantID: String, credentialID: [UInt8]) async throws -> StoredPasskey?
    /// `subject`'s passkeys, oldest first.
    func passkeys(tenantID: String, subject: String) async throws -> [StoredPasskey]
    /// Records a use: the counter moves from `from` to `to` and the backup state and time are
    /// kept, only while the stored counter is still `from`; false when it is not (a parallel
    /// use of the same counter value got there first, or the passkey is gone).
    func recordPasskeyUse(
        tenantID: String, credentialID: [UInt8], from: UInt32, to: UInt32, backedUp: Bool, at: Date
    ) async throws -> Bool
    /// Renames one of `subject`'s passkeys; throws `notFound` when it holds none with that ID.
    func renamePasskey(
        tenantID: String, subject: String, credentialID: [UInt8], name: String, trail: AuditDraft?)
        async throws
    /// Removes one of `subject`'s passkeys; throws `notFound` when it holds none with that ID.
    func removePasskey(tenantID: String, subject: String, credentialID: [UInt8], trail: AuditDraft?) async throws
}
