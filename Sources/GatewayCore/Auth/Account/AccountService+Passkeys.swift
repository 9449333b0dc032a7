import Foundation

/// The account's passkeys in My account (issue 64): listed with the overview, renamed and
/// removed by the user, each change with its audit record (the user as actor). The last way in
/// stays: a passkey is not removed from an account left with no password and no passkey, unless
/// the tenant signs it in with a code to an identifier a code proved.
extension AccountService {
    /// The longest name a person gives a passkey.
    public static let passkeyNameLengths = 1...64

    /// Renames one of the caller's passkeys (`id`: its credential ID, base64url).
    public func renamePasskey(_ id: String, name: String, caller: AccountCaller) async throws -> AccountOverview {
        let (store, user, passkey) = try await ownPasskey(id, caller: caller)
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard Self.passkeyNameLengths.contains(trimmed.count), !ControlCharacters.held(in: trimmed) else {
            throw AccountError.invalid("a passkey's name is 1 to 64 characters, no control characters")
        }
        var draft = trail(user, user, by: user, caller, verb: .update)
        draft.note = AuditNote(action: "passkey.rename", summary: "renamed a passkey to \(trimmed)")
        try await store.renamePasskey(
            tenantID: caller.tenantID, subject: caller.subject, credentialID: passkey.credentialID, name: trimmed,
            trail: draft)
        return try await overview(caller)
    }

    /// Removes one of the caller's passkeys, unless it is the account's last way in (see the
    /// type's note): ``AccountError/lastFactor``.
    public func removePasskey(_ id: String, caller: AccountCaller, settings: JourneySettings) async throws -> AccountOverview {
        let (store, user, passkey) = try await ownPasskey(id, caller: caller)
        let held = try await store.passkeys(tenantID: caller.tenantID, subject: caller.subject)
        let byCode =
            settings.factors.contains(.emailCode) && user.emailVerified
            || settings.factors.contains(.smsCode) && user.phoneVerified
        guard held.count > 1 || user.passwordHash != IdentityLinker.noPassword || byCode else {
            throw AccountError.lastFactor
        }
        var draft = trail(user, user, by: user, caller, verb: .delete)
        draft.note = AuditNote(action: "passkey.remove", summary: "removed the passkey \(passkey.name)")
        try await store.removePasskey(
            tenantID: caller.tenantID, subject: caller.subject, credentialID: passkey.credentialID, trail: draft)
        return try await overview(caller)
    }

    /// The caller's passkey `id` with its store and the account; ``AccountError/passkeyNotFound``
    /// for an ID the account does not hold (another account's included).
    private func ownPasskey(
        _ id: String, caller: AccountCaller
    ) async throws -> (any PasskeyStore, LocalUser, StoredPasskey) {
        guard let store = passkeys else { throw AccountError.passkeyNotFound }
        let user = try await account(of: caller)
        guard id.utf8.count <= 1_400, let credentialID = Base64URL.decode(id),
            let passkey = try await store.passkey(tenantID: caller.tenantID, credentialID: Array(credentialID)),
            passkey.subject == caller.subject
        else { throw AccountError.passkeyNotFound }
        return (store, user, passkey)
    }
}
