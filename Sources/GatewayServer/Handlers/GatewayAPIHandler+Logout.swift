import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func getLogout(_ input: Operations.GetLogout.Input) async throws -> Operations.GetLogout.Output {
        let q = input.query
        switch try await logout(
            .init(
                idTokenHint: q.idTokenHint, postLogoutRedirectURI: q.postLogoutRedirectUri, state: q.state,
                clientID: q.clientId))
        {
        case .page(let html, let setCookie):
            return .ok(.init(headers: .init(setCookie: setCookie), body: .textHtmlCharsetUtf8(.init(html))))
        case .redirect(let location): return .found(.init(headers: .init(location: location)))
        case .refused(let html): return .forbidden(.init(body: .textHtmlCharsetUtf8(.init(html))))
        case .malformed(let html): return .badRequest(.init(body: .textHtmlCharsetUtf8(.init(html))))
        }
    }

    func postLogout(_ input: Operations.PostLogout.Input) async throws -> Operations.PostLogout.Output {
        var f = Components.Schemas.LogoutForm()
        if case .urlEncodedForm(let form) = input.body { f = form }
        let request = LogoutRequest(
            idTokenHint: f.idTokenHint, postLogoutRedirectURI: f.postLogoutRedirectUri, state: f.state,
            clientID: f.clientId,
            everywhere: f.everywhere == ._true, csrfToken: f.csrfToken)
        switch try await logout(request) {
        case .page(let html, let setCookie):
            return .ok(.init(headers: .init(setCookie: setCookie), body: .textHtmlCharsetUtf8(.init(html))))
        case .redirect(let location): return .found(.init(headers: .init(location: location)))
        case .refused(let html): return .forbidden(.init(body: .textHtmlCharsetUtf8(.init(html))))
        case .malformed(let html): return .badRequest(.init(body: .textHtmlCharsetUtf8(.init(html))))
        }
    }

    private struct LogoutRequest {
        var idTokenHint: String?
        var postLogoutRedirectURI: String?
        var state: String?
        var clientID: String?
        /// The "sign out everywhere" form of the signed-out page (POST only).
        var everywhere = false
        var csrfToken: String?
    }

    private enum LogoutOutcome {
        case page(String, setCookie: String?)
        case redirect(String)
        case refused(String)
        case malformed(String)
    }

    /// RP-initiated logout. A valid `id_token_hint` (an ID token of this tenant, possibly
    /// expired) ends its login session; anything else as a hint is `invalid_request` and
    /// nothing is revoked. The signed-out page offers "sign out everywhere", a form post
    /// bound to this browser that ends every session of the user in the tenant.
    private func logout(_ r: LogoutRequest) async throws -> LogoutOutcome {
        let tenant = try RequestScope.requireTenant()
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        if (r.idTokenHint?.count ?? 0) > 2048 || (r.postLogoutRedirectURI?.count ?? 0) > 1024
            || (r.state?.count ?? 0) > 512 || (r.clientID?.count ?? 0) > 128
            || (r.csrfToken?.count ?? 0) > 256
        {
            return .malformed(LoginPage.error("invalid_request: a logout parameter is too long."))
        }
        var hint: IDTokenHintClaims?
        if let token = r.idTokenHint {
            do {
                hint = try await services.auth.logout.hint(
                    token, issuer: issuer, tenantID: tenant.id, clientID: r.clientID)
            } catch let error as OAuthError {
                return .malformed(LoginPage.error("\(error.code): \(error.description)."))
            }
        }
        let cookie = CSRFCookie(issuer: issuer)
        if r.everywhere {
            guard let hint, let browser = cookie.value(in: RequestScope.requestHeaders), let token = r.csrfToken,
                  services.csrf.verify(token, binding: Self.logoutBinding(tenant.id, hint, browser: browser))
            else { return .refused(LoginPage.error("The sign-out form expired or was not submitted from this site.")) }
            try await services.auth.logout.endEverySession(hint, tenantID: tenant.id)
            try await services.auth.browserSessions?.endAll(tenantID: tenant.id, subject: hint.subject)
            return .page(
                LoginPage.page(title: "Signed out", body: "<h1>You are signed out on all devices</h1>"), setCookie: nil)
        }
        // A logout with a valid ID token hint ends this browser's single sign-on session at the
        // tenant too (the cookie then names nothing); without one, a link on any site could
        // sign the person out.
        if hint != nil {
            let session = SessionCookie(issuer: issuer, tenantID: tenant.id).value(in: RequestScope.requestHeaders)
            try await services.auth.browserSessions?.end(tenantID: tenant.id, value: session)
        }
        var location: String?
        if let uri = r.postLogoutRedirectURI {
            location = try await services.auth.logout.postLogoutRedirect(
                uri, state: r.state, hint: hint, clientID: r.clientID, tenantID: tenant.id)
            if location == nil {
                return .refused(LoginPage.error("The post_logout_redirect_uri is not registered for this client."))
            }
        }
        if let hint { try await services.auth.logout.endSession(hint, tenantID: tenant.id) }
        if let location { return .redirect(location) }
        guard let hint, let token = r.idTokenHint else {
            return .page(LoginPage.page(title: "Signed out", body: "<h1>You are signed out</h1>"), setCookie: nil)
        }
        let browser = cookie.valueOrNew(in: RequestScope.requestHeaders)
        let form = LoginPage.signOutEverywhereForm(
            action: "/t/\(tenant.id)/oauth2/logout", idTokenHint: token,
            csrf: services.csrf.issue(binding: Self.logoutBinding(tenant.id, hint, browser: browser)))
        return .page(
            LoginPage.page(title: "Signed out", body: "<h1>You are signed out</h1>" + form),
            setCookie: cookie.setCookie(browser))
    }

    /// What the "sign out everywhere" form's CSRF token is bound to.
    static func logoutBinding(_ tenantID: String, _ hint: IDTokenHintClaims, browser: String) -> String {
        "logout|\(tenantID)|\(hint.subject)|\(hint.sessionID ?? "-")|\(browser)"
    }
}
