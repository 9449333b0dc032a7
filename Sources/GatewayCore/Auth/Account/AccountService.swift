import Foundation

/// My account for the host app (issue 63 §7): what the signed-in user sees of their account
/// and the changes they make to it themselves: the live sessions (and ending one), e-mail
/// addresses and phone numbers proved by a code (``AccountService+Identifiers``), the password
/// and the account itself (``AccountService+Credentials``). Every change is one store write with
/// its audit record, the user as actor (never a code or a password).
public struct AccountService: Sendable {
    /// How young a sign-in is recent enough to change the password or delete the account
    /// without the current password.
    public static let recentSignIn: Duration = .seconds(300)
    /// The most sessions listed (the newest); ending one looks among these.
    public static let maxSessions = 100

    let auth: AuthorizationServer
    let courier: JourneyCourier?
    let accounts: UserAccountService
    let audit: (any AuditTrail)?
    /// The users' passkeys (nil: none listed, none changed).
    let passkeys: (any PasskeyStore)?

    /// - Parameters:
    ///   - courier: sends the codes that prove a new e-mail address or phone number (nil:
    ///     adding one is refused with ``AccountError/channelUnavailable``).
    ///   - accounts: erases an account (the same erasure operators run).
    ///   - audit: where ending a session is recorded (writes to the account are recorded with
    ///     the write itself).
    ///   - passkeys: the users' passkeys.
    public init(
        auth: AuthorizationServer, courier: JourneyCourier?, accounts: UserAccountService, audit: (any AuditTrail)?,
        passkeys: (any PasskeyStore)? = nil
    ) {
        self.passkeys = passkeys
        self.auth = auth
        self.courier = courier
        self.accounts = accounts
        self.audit = audit
    }

    /// The account and its live sessions, newest first.
    public func overview(_ caller: AccountCaller) async throws -> AccountOverview {
        let user = try await account(of: caller)
        let held = try await passkeys?.passkeys(tenantID: caller.tenantID, subject: caller.subject) ?? []
        return AccountOverview(user: user, sessions: try await sessions(of: caller), passkeys: held)
    }

    /// Ends one live session of the user (its refresh token and the access tokens issued from
    /// it, on every replica), recorded in the audit trail.
    public func endSession(_ id: String, caller: AccountCaller) async throws {
        let user = try await account(of: caller)
        guard let session = try await sessions(of: caller).first(where: { $0.id == id }) else {
            throw AccountError.sessionNotFound
        }
        try await auth.tokens.revokeSessions(.family(tenantID: caller.tenantID, subject: caller.subject, familyID: id))
        var draft = trail(user, user, by: user, caller, verb: .act)
        draft.note = AuditNote(action: "end-session", summary: "ended a session at client \(session.clientID)")
        try await audit?.append(draft)
    }

    /// The caller's account: a local user of the tenant, not disabled.
    func account(of caller: AccountCaller) async throws -> LocalUser {
        guard let user = try await auth.users.user(tenantID: caller.tenantID, subject: caller.subject), !user.disabled
        else { throw AccountError.notFound }
        return user
    }

    func sessions(of caller: AccountCaller) async throws -> [AccountSession] {
        try await auth.tokens.refreshStore.liveFamilies(
            tenantID: caller.tenantID, subject: caller.subject, now: auth.clock.now(), limit: Self.maxSessions
        ).map(AccountSession.init)
    }

    /// The audit record of the user's own change from `old` to `new`.
    func trail(
        _ old: LocalUser?, _ new: LocalUser?, by user: LocalUser, _ caller: AccountCaller, verb: AdminVerb
    ) -> AuditDraft {
        let actor = AuditActor.user(user, method: "account", clientID: caller.clientID, address: caller.address)
        return UserTrail.draft(old, new, actor: actor, requestID: nil, verb: verb, time: auth.clock.now())
    }

    /// Writes the caller's account through `change`, recorded with the `note`.
    func write(
        _ caller: AccountCaller, username: String, note: AuditNote,
        _ change: @escaping @Sendable (LocalUser) throws -> LocalUser
    ) async throws -> LocalUser {
        let service = self
        do {
            return try await auth.users.writeUser(
                tenantID: caller.tenantID, username: username,
                trail: { old, new in
                    var draft = service.trail(old, new, by: old, caller, verb: .update)
                    draft.note = note
                    return draft
                }
            ) { current in
                guard !current.disabled, current.subject == caller.subject else { throw AccountError.notFound }
                return try change(current)
            }
        } catch AuthStoreError.notFound {
            throw AccountError.notFound
        }
    }
}
