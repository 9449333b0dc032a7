import Foundation
import NIOPosix

/// The password and the account itself on My account: both need the current password or a
/// sign-in younger than ``AccountService/recentSignIn``.
extension AccountService {
    /// Sets a new password (hashed off the cooperative pool), recorded in the audit trail as
    /// changed (never a hash). The sessions stay: the user ends the others from the list.
    public func changePassword(current: String?, new password: String, caller: AccountCaller) async throws {
        let user = try await account(of: caller)
        guard LocalUser.passwordLengths.contains(password.count) else {
            throw AccountError.invalid(
                "the new password must be \(LocalUser.passwordLengths.lowerBound)-\(LocalUser.passwordLengths.upperBound) characters"
            )
        }
        try await reauthenticate(user, password: current, caller: caller)
        let hasher = auth.hasher
        let hash = try await NIOThreadPool.singleton.runIfActive { try hasher.hash(password) }
        _ = try await write(
            caller, username: user.username, note: AuditNote(action: "change-password", summary: "changed the password")
        ) { current in
            var changed = current
            changed.passwordHash = hash
            return changed
        }
    }

    /// Erases the account and everything the gateway keeps about it (the erasure operators
    /// run: tokens revoked, rows deleted, release lists cleaned), and ends its browser
    /// sessions; recorded with the user as actor.
    public func delete(password: String?, caller: AccountCaller) async throws -> UserErasure {
        let user = try await account(of: caller)
        try await reauthenticate(user, password: password, caller: caller)
        let attribution = UserAccountService.Attribution(
            actor: .user(user, method: "account", clientID: caller.clientID, address: caller.address), requestID: nil,
            time: auth.clock.now())
        let report: UserErasureReport
        do {
            report = try await accounts.erase(
                tenantID: caller.tenantID, username: user.username, revision: nil, by: attribution)
        } catch UserAccountError.notFound {
            throw AccountError.notFound
        }
        try await auth.browserSessions?.endAll(tenantID: caller.tenantID, subject: user.subject)
        return report.erasure
    }

    /// Passes with the right current password (under the sign-in throttle) or, without one, a
    /// recent sign-in.
    private func reauthenticate(_ user: LocalUser, password: String?, caller: AccountCaller) async throws {
        if let password, !password.isEmpty {
            switch try await auth.authenticate(
                tenantID: caller.tenantID, username: user.username, password: password, address: caller.address)
            {
            case .signedIn(let signedIn) where signedIn.subject == user.subject: return
            case .throttled(let retryAfter): throw AccountError.throttled(retryAfter: retryAfter)
            default: throw AccountError.wrongPassword
            }
        }
        guard let authTime = caller.authTime,
            auth.clock.now().timeIntervalSince(authTime) <= TimeInterval(Self.recentSignIn.components.seconds)
        else { throw AccountError.reauthenticationRequired }
    }
}
