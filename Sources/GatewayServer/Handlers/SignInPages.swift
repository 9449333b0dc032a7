import Foundation
import GatewayAPI
import GatewayCore

/// Renders the steps of a ``BrowserSignIn`` for `/oauth2/authorize`: pages in the page's
/// language with the form's action, provider links and CSRF cookie, or JSON for a
/// first-party app; and the status of each step.
struct SignInPages {
    typealias Output = Operations.PostAuthorize.Output

    let tenant: Tenant
    let texts: LoginTexts
    let request: AuthorizationRequest
    let cookie: CSRFCookie
    /// The browser's single sign-on cookie at this tenant.
    let session: SessionCookie

    /// Where the form posts.
    var action: String { "/t/\(tenant.id)/oauth2/authorize" }

    /// The page's Content-Security-Policy: its form may go on to the client's redirect URI.
    func policy(_ page: BrowserSignIn.Page) -> String {
        LoginPage.contentSecurityPolicy(redirectingTo: page.redirectURI, logoURL: tenant.theme.logoURL)
    }

    func errorPage(_ key: String, _ parameters: [String: String] = [:]) -> String {
        LoginPage.error(texts.text(key, parameters), texts: texts)
    }

    /// What `page` shows: a third-party client's consent page when it asks consent
    /// (``BrowserSignIn/Page/consent``), else the sign-in form.
    func form(_ page: BrowserSignIn.Page) -> String {
        if let consent = page.consent {
            return LoginPage.consentForm(
                tenant: tenant, texts: texts, action: action, request: request, csrf: page.csrf, consent: consent)
        }
        return LoginPage.form(
            tenant: tenant, texts: texts, action: action, request: request, csrf: page.csrf, username: page.username,
            error: message(page.notice),
            providers: page.providers.map {
                (name: $0.displayName, href: Self.authorizeLink(action, request, idpHint: $0.alias))
            })
    }

    func codePage(_ page: BrowserSignIn.Page, authSession: String) -> String {
        LoginPage.otpForm(
            tenant: tenant, texts: texts, action: action, request: request, csrf: page.csrf, authSession: authSession,
            error: message(page.notice))
    }

    /// The answer to a browser's post.
    func html(_ step: BrowserSignIn.Step) -> Output {
        switch step {
        case .form(let page), .consentPage(let page):
            return answer(page, html: form(page))
        case .codePage(let page, let authSession):
            return answer(page, html: codePage(page, authSession: authSession))
        case .exit(.redirect(let location)):
            return .seeOther(.init(headers: .init(location: location)))
        case .signedIn(let location, let value):
            return .seeOther(.init(headers: .init(location: location, setCookie: session.setCookie(value))))
        case .exit(.errorPage(let key)):
            return .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
                    body: .textHtmlCharsetUtf8(.init(errorPage(key)))))
        case .refused, .secondFactorRequired:
            // Only native posters get these.
            return json(step)
        }
    }

    /// The answer to a first-party app's post (error pages in English).
    func json(_ step: BrowserSignIn.Step) -> Output {
        switch step {
        case .exit(.redirect(let location)), .signedIn(let location, _):
            return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(redirectTo: location))))
        case .exit(.errorPage(let key)):
            return .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .json(
                        .init(error: "invalid_request", errorDescription: LoginTexts(locale: "en").text(key)))))
        case .refused(let notice):
            let description = texts.text(notice.key, notice.parameters)
            guard case .throttled(let seconds) = notice else {
                return .unauthorized(
                    .init(
                        headers: .init(cacheControl: "no-store"),
                        body: .json(.init(error: "access_denied", errorDescription: description))))
            }
            return .tooManyRequests(
                .init(
                    headers: .init(cacheControl: "no-store", retryAfter: String(seconds)),
                    body: .json(.init(error: "temporarily_unavailable", errorDescription: description))))
        case .secondFactorRequired:
            return .unauthorized(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .json(
                        .init(
                            error: "insufficient_authorization",
                            errorDescription:
                                "this user has a second factor: sign in through the authorization challenge endpoint"
                        ))))
        case .form, .codePage, .consentPage:
            // Only browsers get pages.
            return html(step)
        }
    }

    /// A page with the status its notice calls for: 200 on a first showing, 401 after a wrong
    /// password or code, 429 with `Retry-After` when throttled.
    private func answer(_ page: BrowserSignIn.Page, html: String) -> Output {
        let policy = policy(page)
        let setCookie = cookie.setCookie(page.browser)
        switch page.notice {
        case nil:
            return .ok(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: policy, setCookie: setCookie),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .wrongCredentials, .wrongCode:
            return .unauthorized(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: policy, setCookie: setCookie),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .throttled(let seconds):
            return .tooManyRequests(
                .init(
                    headers: .init(
                        cacheControl: "no-store", contentSecurityPolicy: policy, setCookie: setCookie,
                        retryAfter: String(seconds)),
                    body: .textHtmlCharsetUtf8(.init(html))))
        }
    }

    private func message(_ notice: BrowserSignIn.Notice?) -> String? {
        notice.map { texts.text($0.key, $0.parameters) }
    }

    /// The authorization URL of `request` with `idp_hint` (the sign-in page's provider links).
    static func authorizeLink(_ action: String, _ r: AuthorizationRequest, idpHint: String) -> String {
        AuthorizationServer.redirect(
            action,
            [
                "response_type": r.responseType, "client_id": r.clientID, "redirect_uri": r.redirectURI,
                "scope": r.scope, "state": r.state, "nonce": r.nonce,
                "code_challenge": r.codeChallenge, "code_challenge_method": r.codeChallengeMethod, "prompt": r.prompt,
                "login_hint": r.loginHint,
                "acr_values": r.acrValues, "request_uri": r.requestURI, "ui_locales": r.uiLocales, "idp_hint": idpHint,
            ])
    }
}
