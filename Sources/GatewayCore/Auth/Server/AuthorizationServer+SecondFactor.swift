import Foundation

/// The second step of a sign-in whose user has a TOTP second factor, shared by the sign-in
/// form and the authorization challenge endpoint.
extension AuthorizationServer {
    /// What became of a one-time code for a pending sign-in.
    public enum SecondFactorOutcome: Sendable {
        /// The code was right: the user (re-read, so a user disabled meanwhile is refused).
        case signedIn(LocalUser, PendingSignIn)
        /// No code was sent yet: ask for it.
        case codeRequired
        /// A wrong (or replayed) code; the session stays open for another try.
        case failed
        /// Held back by the ``LoginThrottle``; the code was not checked.
        case throttled(retryAfter: Duration)
    }

    /// The pending sign-in behind `authSession` if it belongs to `clientID` (when given) and was
    /// started with `binding`; else `invalid_session`.
    public func pendingSignIn(
        _ authSession: String, tenantID: String, clientID: String?, binding: PendingSignIn.Binding
    ) async throws -> PendingSignIn {
        guard let signIn = try await pending.find(authSession, tenantID: tenantID),
            clientID == nil || clientID == signIn.clientID
        else {
            throw OAuthError.invalidSession("the auth_session is unknown, expired or ended; sign in again")
        }
        guard signIn.binding == binding else {
            throw OAuthError.invalidSession("the auth_session was started with another DPoP key or browser")
        }
        return signIn
    }

    /// Checks `code` against the user's TOTP secret under the same ``LoginThrottle`` as
    /// passwords (per account and address). A code is good once: its step is remembered, so
    /// a replayed code fails. Five wrong codes end the session. Throws `invalid_session` when
    /// the session ended (or the user lost the second factor or was disabled).
    public func verifySecondFactor(
        authSession: String, signIn: PendingSignIn, code: String?, address: String?
    ) async throws -> SecondFactorOutcome {
        let now = clock.now()
        guard let code, !code.isEmpty else { return .codeRequired }
        let tenantID = signIn.tenantID
        switch await throttle.check(tenantID: tenantID, username: signIn.username, address: address) {
        case .throttled(let retryAfter):
            return .throttled(retryAfter: retryAfter)
        case .proceed(let slowdown):
            if slowdown > .zero { try await Task.sleep(for: slowdown) }
        }
        guard let user = try await users.user(tenantID: tenantID, username: signIn.username), !user.disabled,
              let secret = user.totpSecret, let totp = TOTP(base32: secret.plaintext) else {
            _ = try await pending.finish(authSession, tenantID: tenantID)
            throw OAuthError.invalidSession("the sign-in can no longer be completed; sign in again")
        }
        if let step = totp.matchingStep(code, at: now),
            try await cache.setIfAbsent(
                "oauth:totp-used:\(tenantID):\(user.subject):\(step)", [1],
                ttl: .seconds(TOTP.period * (2 * TOTP.drift + 2)))
        {
            guard let finished = try await pending.finish(authSession, tenantID: tenantID) else {
                throw OAuthError.invalidSession("the auth_session was already used")
            }
            await throttle.recordSuccess(tenantID: tenantID, username: signIn.username, address: address)
            return .signedIn(user, finished)
        }
        await throttle.recordFailure(tenantID: tenantID, username: signIn.username, address: address)
        guard try await pending.recordFailure(authSession, tenantID: tenantID) else {
            throw OAuthError.invalidSession("too many wrong codes; sign in again")
        }
        return .failed
    }
}
