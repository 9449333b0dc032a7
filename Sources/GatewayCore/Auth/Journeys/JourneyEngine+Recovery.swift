import Foundation
import NIOPosix

/// Recovering a forgotten password (issue 63 §1-2): a code to the account's e-mail address or
/// phone number (the tenant's recovery channels), the authenticator app's code when the account
/// has one, then a new password; every other session of the user ends and the person is
/// signed in.
extension JourneyEngine {
    /// The recover screen's submit: the address or number checked against the tenant's recovery
    /// channels, then a recovery code to it (only when one account holds it; else nothing, after
    /// the same bounds) and the code screen.
    func startRecovery(
        _ journey: inout Journey, _ typed: String, screen: JourneyScreen, settings: JourneySettings, address: String?
    ) async throws -> JourneyOutcome {
        let identifier = Self.typedIdentifier(typed, settings: settings)
        let channel: CourierMessage.Channel
        if settings.recovery.contains(.phone), Self.looksLikePhone(identifier, settings: settings) {
            guard identifier.range(of: JourneyStep.phonePattern, options: .regularExpression) != nil else {
                return .refused(screen.with([JourneyScreen.Message(field: "identifier", key: "journey.error.phone")]))
            }
            channel = .sms
        } else if settings.recovery.contains(.email), identifier.contains("@") {
            guard MailAddress.problem(identifier) == nil else {
                return .refused(screen.with([JourneyScreen.Message(field: "identifier", key: "journey.error.email")]))
            }
            channel = .email
        } else {
            return .refused(screen.with([JourneyScreen.Message(field: "identifier", key: "journey.error.identifier")]))
        }
        journey.identifier = channel == .email ? identifier.lowercased() : identifier
        journey.recovering = nil
        return try await sendSignInCode(&journey, channel: channel, settings: settings, address: address, screen: screen)
    }

    /// The code screen's submit while recovering: the right code for the one account holding the
    /// address or number leads to its authenticator app's code (when it has one), then to the new
    /// password. Wrong, used, expired codes and codes for what no account holds are refused
    /// alike.
    func checkRecoveryCode(
        _ journey: inout Journey, _ code: String, screen: JourneyScreen, settings: JourneySettings
    ) async throws -> JourneyOutcome {
        guard let identifier = journey.identifier else { throw JourneyError.notFound }
        guard let user = try await holderProving(code, purpose: .recovery, journey: journey, settings: settings) else {
            return Self.wrongCode(screen, sentTo: identifier)
        }
        guard user.totpSecret == nil else {
            // The second factor still stands between a mailbox (or a SIM) and the account.
            let signIn = PendingSignIn(
                tenantID: journey.tenantID, clientID: journey.clientID, username: user.username, redirectURI: nil,
                scope: journey.scope, codeChallenge: journey.codeChallenge, nonce: journey.nonce,
                binding: .journey(journey.id))
            journey.authSession = try await auth.pending.start(signIn)
            return try await move(&journey, to: .totp, settings: settings)
        }
        journey.recovering = user.username
        return try await move(&journey, to: .newPassword, settings: settings)
    }

    /// The new-password screen's submit: the password set (hashed off the cooperative pool) with
    /// the audit record (the user as actor, never the password) and every session of the user
    /// ended (refresh families, their access tokens and mini-app tokens) in one transaction,
    /// announced to every replica, and the person signed in with a new one.
    func setNewPassword(
        _ journey: inout Journey, _ password: String, screen: JourneyScreen, address: String?, onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        guard let username = journey.recovering else { throw JourneyError.notFound }
        guard LocalUser.passwordLengths.contains(password.count) else {
            return .refused(
                screen.with([
                    JourneyScreen.Message(
                        field: "password", key: "journey.error.new-password",
                        values: ["min": String(LocalUser.passwordLengths.lowerBound)])
                ]))
        }
        let hasher = auth.hasher
        let hash = try await NIOThreadPool.singleton.runIfActive { try hasher.hash(password) }
        let now = clock.now()
        let clientID = journey.clientID
        // The browser sessions end first: were the write below to fail, the person is only
        // signed out of the browser, and tries again.
        guard let holder = try await auth.users.user(tenantID: journey.tenantID, username: username) else {
            throw JourneyError.notFound
        }
        try await auth.browserSessions?.endAll(tenantID: journey.tenantID, subject: holder.subject)
        let user: LocalUser
        do {
            let (stored, revoked) = try await auth.users.writeUserEndingSessions(
                tenantID: journey.tenantID, username: username, now: now,
                trail: { old, new in
                    var draft = UserTrail.draft(
                        old, new, actor: AuditActor.user(new, method: "recovery", clientID: clientID, address: address),
                        requestID: nil, verb: .update, time: now)
                    draft.note = AuditNote(action: "recovery", summary: "reset the password through \(clientID)")
                    return draft
                }
            ) { current in
                guard !current.disabled else { throw JourneyError.notFound }
                var changed = current
                changed.passwordHash = hash
                return changed
            }
            user = stored
            try await auth.revocations.announce(revoked)
        } catch AuthStoreError.notFound {
            throw JourneyError.notFound
        }
        journey.amr = ["pwd"]
        return try await finish(journey, user: user, onHostedPage: onHostedPage)
    }

}
