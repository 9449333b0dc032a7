import Foundation

/// The sign-in at `/oauth2/authorize`, decided here and rendered by the handler: the form and
/// its CSRF token (bound to the tenant, client, redirect URI and the browser's cookie), the
/// password check and its throttle, the one-time-code page of users with a second factor
/// (``BrowserSignIn/submit(_:tenantID:poster:fields:address:issuer:)``), the hand-off to an
/// identity provider (``BrowserSignIn/open(_:tenantID:browser:idpHint:callbackURL:issuer:)``),
/// and the end: a code, or an RFC 6749 error, on the client's redirect URI, or an error page
/// when nothing in the request can be trusted to send the user back.
///
/// First-party apps post the same form asking for JSON (``Poster/native``): no cookie, no
/// token, no pages; a refusal is a ``Step/refused(_:)`` notice.
public struct BrowserSignIn: Sendable {
    let auth: AuthorizationServer
    let federation: FederatedSignIn
    let csrf: CSRFTokens

    public init(auth: AuthorizationServer, federation: FederatedSignIn, csrf: CSRFTokens) {
        self.auth = auth
        self.federation = federation
        self.csrf = csrf
    }

    /// The form for `request`, or the identity provider named by `idpHint` (else the tenant's
    /// auto-redirect provider). A PAR request is taken when going upstream: the sign-in may
    /// outlive its 60 seconds. A browser with a live single sign-on session at the tenant is
    /// signed in silently (``silentSignIn``); `prompt=none` without one is `login_required`.
    /// A third-party client asking what the user has not allowed it gets the consent page
    /// first (`prompt=none`: `consent_required`).
    /// - Parameters:
    ///   - browser: the browser's CSRF cookie value (its own, or a new one).
    ///   - session: the browser's single sign-on cookie value, when it sent one.
    ///   - stepUp: the tenant's settings, whose classes `acr_values` may ask.
    public func open(
        _ request: AuthorizationRequest, tenantID: String, browser: String, session: String? = nil, idpHint: String?,
        callbackURL: String, issuer: String, stepUp: JourneySettings = JourneySettings()
    ) async throws -> Opening {
        do {
            let validated = try await auth.validate(request, tenantID: tenantID, consumePAR: false)
            switch try await silentSignIn(
                request, validated, tenantID: tenantID, browser: browser, session: session, issuer: issuer,
                stepUp: stepUp)
            {
            case .signedIn(let location): return .exit(.redirect(location))
            case .consent(let page): return .consent(page)
            case nil: break
            }
            if validated.request.prompts.contains("none") {
                throw AuthorizationFailure.redirect(
                    OAuthError("login_required", "the user must sign in"), redirectURI: validated.redirectURI,
                    state: validated.request.state)
            }
            let providers = try await federation.providers(tenantID: tenantID)
            if let provider = providers.first(where: { $0.alias == idpHint }) ?? providers.first(where: \.autoRedirect) {
                let taken =
                    request.requestURI == nil
                    ? validated : try await auth.validate(request, tenantID: tenantID, consumePAR: true)
                let upstreamBrowser = Self.newBrowserValue()
                let location = try await federation.begin(
                    taken, pushed: request.requestURI != nil, provider: provider, browser: upstreamBrowser,
                    callbackURL: callbackURL)
                return .upstream(location: location, browser: upstreamBrowser)
            }
            return .form(
                page(
                    validated, tenantID: tenantID, browser: browser, username: validated.request.loginHint,
                    providers: providers))
        } catch let failure as AuthorizationFailure {
            return .exit(Self.exit(for: failure, issuer: issuer))
        }
    }

    /// Checks a posted form: its CSRF token (browsers), then the password, or the one-time
    /// code of the second step; a right one ends in a code on the client's redirect URI.
    public func submit(
        _ request: AuthorizationRequest, tenantID: String, poster: Poster, fields: Fields, address: String?,
        issuer: String, stepUp: JourneySettings = JourneySettings()
    ) async throws -> Step {
        do {
            if let consentSession = fields.consentSession {
                return try await answerConsent(
                    session: consentSession, allow: fields.consent == "allow", poster: poster, tenantID: tenantID,
                    issuer: issuer, stepUp: stepUp)
            }
            var validated = try await auth.validate(request, tenantID: tenantID, consumePAR: false)
            if validated.request.prompts.contains("none") {
                // No page may be shown, so none was posted.
                throw AuthorizationFailure.redirect(
                    OAuthError("login_required", "the user must sign in"), redirectURI: validated.redirectURI,
                    state: validated.request.state)
            }
            var browser: String?
            if case .browser(let cookie, let token) = poster {
                guard let cookie, let token,
                    csrf.verify(token, binding: Self.binding(tenantID, validated, browser: cookie))
                else {
                    return .exit(.errorPage(key: "login.error.expired"))
                }
                browser = cookie
            }
            let user: LocalUser
            var amr = ["pwd"]
            if let authSession = fields.authSession {
                guard let browser else { return .exit(.errorPage(key: "login.error.session")) }
                let code = CodeStep(flow: self, tenantID: tenantID, validated: validated, browser: browser)
                switch try await code.verify(authSession: authSession, code: fields.otp, address: address) {
                case .signedIn(let signedIn):
                    user = signedIn
                    amr.append("otp")
                case .step(let step): return step
                }
            } else {
                switch try await auth.authenticate(
                    tenantID: tenantID, username: fields.username, password: fields.password, address: address)
                {
                case .signedIn(let signedIn):
                    user = signedIn
                case .failed:
                    return try await refused(
                        .wrongCredentials, validated, tenantID: tenantID, browser: browser, username: fields.username)
                case .throttled(let retryAfter):
                    return try await refused(
                        .throttled(retryAfter: Self.wholeSeconds(retryAfter)), validated, tenantID: tenantID,
                        browser: browser, username: fields.username)
                }
                if user.totpSecret != nil {
                    guard let browser else { return .secondFactorRequired }
                    let code = CodeStep(flow: self, tenantID: tenantID, validated: validated, browser: browser)
                    return try await code.start(user: user)
                }
            }
            if try await auth.needsConsent(validated, subject: user.subject) {
                // A native caller cannot show the page: it is refused, as `prompt=none` is.
                guard let browser else { throw Self.consentRequired(validated) }
                return .consentPage(
                    try await consentPage(
                        validated, requestURI: request.requestURI, tenantID: tenantID, browser: browser,
                        subject: user.subject, amr: amr, authTime: Int64(auth.clock.now().timeIntervalSince1970),
                        startsSession: true))
            }
            if request.requestURI != nil {
                validated = try await auth.validate(request, tenantID: tenantID, consumePAR: true)
            }
            let location = try await auth.completeAuthorization(
                validated, user: user, issuer: issuer, amr: amr, stepUp: stepUp)
            // A browser keeps a single sign-on session at the tenant; a native caller does not.
            guard browser != nil, let sessions = auth.browserSessions else { return .exit(.redirect(location)) }
            let session = try await sessions.start(tenantID: tenantID, subject: user.subject, amr: amr)
            return .signedIn(location: location, session: session)
        } catch let failure as AuthorizationFailure {
            return .exit(Self.exit(for: failure, issuer: issuer))
        }
    }

    /// A code for the browser's single sign-on session, when it has one that fits: not when the
    /// request asks a fresh sign-in (`prompt=login`, `max_age=0`), the session is older than
    /// `max_age`, the `acr_values` ask only classes the session's sign-in does not meet (the
    /// TOTP class, a tenant's own), or its user is gone or disabled. The ID token carries the
    /// session's `auth_time` and `amr`, and the asked class it meets as `acr`.
    private func silentSignIn(
        _ request: AuthorizationRequest, _ validated: ValidatedAuthorization, tenantID: String, browser: String,
        session: String?, issuer: String, stepUp: JourneySettings
    ) async throws -> Silent? {
        let asked = validated.request
        guard let sessions = auth.browserSessions, !asked.prompts.contains("login"),
            let current = try await sessions.current(tenantID: tenantID, value: session)
        else { return nil }
        if let maxAge = asked.maxAgeSeconds {
            let age = Int64(auth.clock.now().timeIntervalSince1970) - current.authTime
            guard age <= Int64(maxAge), maxAge > 0 else { return nil }
        }
        guard stepUp.meets(amr: current.amr, asked: asked.acrList) else { return nil }
        guard let user = try await auth.users.user(tenantID: tenantID, subject: current.subject), !user.disabled else {
            return nil
        }
        if try await auth.needsConsent(validated, subject: user.subject) {
            if asked.prompts.contains("none") { throw Self.consentRequired(validated) }
            return .consent(
                try await consentPage(
                    validated, requestURI: request.requestURI, tenantID: tenantID, browser: browser,
                    subject: user.subject, amr: current.amr, authTime: current.authTime, startsSession: false))
        }
        let taken =
            request.requestURI == nil ? validated : try await auth.validate(request, tenantID: tenantID, consumePAR: true)
        return .signedIn(
            try await auth.completeAuthorization(
                taken, user: user, issuer: issuer, amr: current.amr, authTime: current.authTime, stepUp: stepUp))
    }

    /// What the browser's session gives: a code, or the consent page first.
    private enum Silent {
        case signedIn(String)
        case consent(Page)
    }

    /// `consent_required` on the client's redirect URI: the client must ask with a page.
    static func consentRequired(_ validated: ValidatedAuthorization) -> AuthorizationFailure {
        .redirect(
            OAuthError("consent_required", "the user has not allowed this client what it asks"),
            redirectURI: validated.redirectURI, state: validated.request.state)
    }

    /// Where a refused authorization request goes: an error page, or the error on the
    /// client's redirect URI.
    public static func exit(for failure: AuthorizationFailure, issuer: String) -> Exit {
        switch failure {
        case .errorPage(let reason):
            .errorPage(key: reason.key)
        case .redirect(let error, let redirectURI, let state):
            .redirect(AuthorizationServer.errorRedirect(error, redirectURI: redirectURI, state: state, issuer: issuer))
        }
    }

    /// A fresh value binding a sign-in to one browser (a cookie's value): 16 random bytes,
    /// 22 base64url characters.
    public static func newBrowserValue() -> String {
        Base64URL.random(byteCount: 16)
    }

    /// A duration as whole seconds, rounded up, at least 1 (a `Retry-After`).
    public static func wholeSeconds(_ duration: Duration) -> Int {
        max(1, Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up)))
    }

    /// The form again with `notice` for a browser; the notice alone for a native caller.
    private func refused(
        _ notice: Notice, _ validated: ValidatedAuthorization, tenantID: String, browser: String?, username: String
    ) async throws -> Step {
        guard let browser else { return .refused(notice) }
        let providers = try await federation.providers(tenantID: tenantID)
        return .form(
            page(validated, tenantID: tenantID, browser: browser, username: username, providers: providers,
                 notice: notice))
    }

    /// A page bound to `browser`, with a fresh token.
    func page(
        _ validated: ValidatedAuthorization, tenantID: String, browser: String, username: String?,
        providers: [IdentityProvider] = [], notice: Notice? = nil
    ) -> Page {
        Page(
            browser: browser, csrf: csrf.issue(binding: Self.binding(tenantID, validated, browser: browser)),
            redirectURI: validated.redirectURI, username: username, providers: providers, notice: notice)
    }

    /// What a page's CSRF token is bound to: the tenant, client and redirect URI of the
    /// request, and the browser's cookie value.
    static func binding(_ tenantID: String, _ v: ValidatedAuthorization, browser: String) -> String {
        "authorize|\(tenantID)|\(v.client.clientID)|\(v.redirectURI)|\(browser)"
    }
}
