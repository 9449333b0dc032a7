import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    /// The identity providers' redirect back: translate the callback, let ``FederatedSignIn``
    /// decide, then finish the client's authorization with the linked local user.
    func federationCallback(
        _ input: Operations.FederationCallback.Input
    ) async throws -> Operations.FederationCallback.Output {
        let tenant = try RequestScope.requireTenant()
        let q = input.query
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let texts = await loginTexts(tenantID: tenant.id, uiLocales: nil)
        let cookie = CSRFCookie.federation(issuer: issuer)
        let expired = cookie.setCookie("", maxAge: 0)
        func page(_ message: String, forbidden: Bool) -> Operations.FederationCallback.Output {
            let headers = Operations.FederationCallback.Output.BadRequest.Headers(
                cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy)
            let body = Operations.FederationCallback.Output.BadRequest.Body.textHtmlCharsetUtf8(
                .init(LoginPage.error(message, texts: texts)))
            return forbidden
                ? .forbidden(
                    .init(
                        headers: .init(
                            cacheControl: headers.cacheControl, contentSecurityPolicy: headers.contentSecurityPolicy),
                        body: .textHtmlCharsetUtf8(.init(LoginPage.error(message, texts: texts)))))
                : .badRequest(.init(headers: headers, body: body))
        }
        let callback = FederatedSignIn.Callback(
            state: q.state, code: q.code, error: q.error, errorDescription: q.errorDescription, issuer: q.iss)
        do {
            let (validated, user) = try await services.federation.signIn.finish(
                tenantID: tenant.id, callback: callback, browser: cookie.value(in: RequestScope.requestHeaders),
                callbackURL: Self.federationCallbackURL(issuer: issuer), auth: services.auth)
            if try await services.auth.needsConsent(validated, subject: user.subject) {
                return try await consentPage(validated, subject: user.subject, tenant: tenant, texts: texts)
            }
            // How the provider authenticated the person is its own: no `amr` is claimed for it.
            let location = try await services.auth.completeAuthorization(
                validated, user: user, issuer: issuer, amr: [])
            return .found(.init(headers: .init(location: location, setCookie: expired)))
        } catch FederationError.invalidState {
            return page(texts.text("login.error.federation"), forbidden: false)
        } catch let failure as AuthorizationFailure {
            switch BrowserSignIn.exit(for: failure, issuer: issuer) {
            case .errorPage(let key):
                return page(texts.text(key), forbidden: true)
            case .redirect(let location):
                return .found(.init(headers: .init(location: location, setCookie: expired)))
            }
        }
    }

    /// The consent page of a third-party client after the provider's sign-in, bound to the
    /// browser's CSRF cookie (set here when it had none).
    private func consentPage(
        _ validated: ValidatedAuthorization, subject: String, tenant: Tenant, texts: LoginTexts
    ) async throws -> Operations.FederationCallback.Output {
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let cookie = CSRFCookie(issuer: issuer)
        let page = try await services.signIn.consentPage(
            validated, requestURI: nil, tenantID: tenant.id, browser: cookie.valueOrNew(in: RequestScope.requestHeaders),
            subject: subject, amr: [], authTime: Int64(services.auth.clock.now().timeIntervalSince1970),
            startsSession: false)
        let pages = SignInPages(
            tenant: tenant, texts: texts, request: validated.request, cookie: cookie,
            session: SessionCookie(issuer: issuer, tenantID: tenant.id))
        return .ok(
            .init(
                headers: .init(
                    cacheControl: "no-store", contentSecurityPolicy: pages.policy(page),
                    setCookie: cookie.setCookie(page.browser)),
                body: .textHtmlCharsetUtf8(.init(pages.form(page)))))
    }
}
