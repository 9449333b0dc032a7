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
    /// outlive its 60 seconds.
    /// - Parameter browser: the browser's CSRF cookie value (its own, or a new one).
    public func open(
        _ request: AuthorizationRequest, tenantID: String, browser: String, idpHint: String?, callbackURL: String,
        issuer: String
    ) async throws -> Opening {
        do {
            let validated = try await auth.validate(request, tenantID: tenantID, consumePAR: false)
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
        issuer: String
    ) async throws -> Step {
        do {
            var validated = try await auth.validate(request, tenantID: tenantID, consumePAR: false)
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
            if let authSession = fields.authSession {
                guard let browser else { return .exit(.errorPage(key: "login.error.session")) }
                let code = CodeStep(flow: self, tenantID: tenantID, validated: validated, browser: browser)
                switch try await code.verify(authSession: authSession, code: fields.otp, address: address) {
                case .signedIn(let signedIn): user = signedIn
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
            if request.requestURI != nil {
                validated = try await auth.validate(request, tenantID: tenantID, consumePAR: true)
            }
            return .exit(.redirect(try await auth.completeAuthorization(validated, user: user, issuer: issuer)))
        } catch let failure as AuthorizationFailure {
            return .exit(Self.exit(for: failure, issuer: issuer))
        }
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
