import Foundation

extension BrowserSignIn {
    /// What the consent page shows: its session, and who asks what.
    public struct ConsentScreen: Sendable, Equatable {
        /// The pending consent's session value (a hidden field).
        public let session: String
        /// The asking client's id, and the host its redirect URI goes to.
        public let clientID: String
        public let clientHost: String
        /// The scopes asked, in the request's order.
        public let scopes: [String]
    }

    /// The consent page of a third-party client for a signed-in user (after the form, over
    /// the browser's session, or back from an identity provider): ``PendingConsent`` keeps the
    /// validated request, so the answer (`consent_session`, `consent`, the CSRF token bound to
    /// both) finishes it without the authorization parameters. Allowing records the grant, so
    /// later sign-ins, silent ones too, ask no more; denying is `access_denied`.
    public func consentPage(
        _ validated: ValidatedAuthorization, requestURI: String?, tenantID: String, browser: String, subject: String,
        amr: [String], authTime: Int64, startsSession: Bool
    ) async throws -> Page {
        let pending = PendingConsent(
            tenantID: tenantID, clientID: validated.client.clientID, subject: subject, request: validated.request,
            redirectURI: validated.redirectURI, scope: validated.scope, requestURI: requestURI, browser: browser,
            amr: amr, authTime: authTime, startsSession: startsSession)
        let session = try await auth.consents.start(pending)
        let consent = ConsentScreen(
            session: session, clientID: validated.client.clientID,
            clientHost: URL(string: validated.redirectURI)?.host ?? validated.redirectURI,
            scopes: validated.scope.split(separator: " ").map(String.init))
        return Page(
            browser: browser, csrf: csrf.issue(binding: Self.consentBinding(tenantID, session, browser: browser)),
            redirectURI: validated.redirectURI, username: nil, providers: [], notice: nil, consent: consent)
    }

    /// The user's answer on the consent page. A token, session or browser that does not
    /// match (unknown, answered, expired, another browser's) ends on the "start again" page.
    func answerConsent(
        session: String, allow: Bool, poster: Poster, tenantID: String, issuer: String, stepUp: JourneySettings
    ) async throws -> Step {
        guard case .browser(let cookie?, let token?) = poster,
            csrf.verify(token, binding: Self.consentBinding(tenantID, session, browser: cookie)),
            let pending = try await auth.consents.take(session, tenantID: tenantID), pending.browser == cookie,
            let client = try await auth.client(tenantID: tenantID, clientID: pending.clientID)
        else {
            return .exit(.errorPage(key: "login.error.session"))
        }
        let validated = ValidatedAuthorization(
            client: client, redirectURI: pending.redirectURI, request: pending.request, scope: pending.scope)
        guard allow else {
            throw AuthorizationFailure.redirect(
                OAuthError("access_denied", "the user did not allow this client"), redirectURI: pending.redirectURI,
                state: pending.request.state)
        }
        guard let user = try await auth.users.user(tenantID: tenantID, subject: pending.subject), !user.disabled
        else {
            return .exit(.errorPage(key: "login.error.session"))
        }
        try await auth.users.grant(
            AuthorizationServer.scopes(of: pending.scope), tenantID: tenantID, subject: user.subject,
            clientID: pending.clientID, at: auth.clock.now())
        if let requestURI = pending.requestURI {
            try await auth.discardPushedRequest(requestURI, tenantID: tenantID)
        }
        let location = try await auth.completeAuthorization(
            validated, user: user, issuer: issuer, amr: pending.amr, authTime: pending.authTime, stepUp: stepUp)
        guard pending.startsSession, let sessions = auth.browserSessions else { return .exit(.redirect(location)) }
        let started = try await sessions.start(
            tenantID: tenantID, subject: user.subject, amr: pending.amr, authTime: pending.authTime)
        return .signedIn(location: location, session: started)
    }

    /// What a consent page's CSRF token is bound to: the tenant, the consent session's digest
    /// and the browser's cookie value.
    static func consentBinding(_ tenantID: String, _ session: String, browser: String) -> String {
        "consent|\(tenantID)|\(Base64URL.sha256(session))|\(browser)"
    }
}
