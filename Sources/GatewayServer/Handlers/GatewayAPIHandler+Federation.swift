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
}
