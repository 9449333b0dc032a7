import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func getAuthorize(_ input: Operations.GetAuthorize.Input) async throws -> Operations.GetAuthorize.Output {
        let tenant = try RequestScope.requireTenant()
        let q = input.query
        let request = AuthorizationRequest(
            responseType: q.responseType, clientID: q.clientId, redirectURI: q.redirectUri, scope: q.scope,
            state: q.state, nonce: q.nonce,
            codeChallenge: q.codeChallenge, codeChallengeMethod: q.codeChallengeMethod, prompt: q.prompt,
            loginHint: q.loginHint,
            acrValues: q.acrValues, requestURI: q.requestUri, uiLocales: q.uiLocales, maxAge: q.maxAge)
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let pages = SignInPages(
            tenant: tenant, texts: await loginTexts(tenantID: tenant.id, uiLocales: request.uiLocales),
            request: request, cookie: CSRFCookie(issuer: issuer), session: SessionCookie(issuer: issuer, tenantID: tenant.id))
        if let tooLong = Self.overlongParameter(request) {
            return .badRequest(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
                    body: .textHtmlCharsetUtf8(.init(pages.errorPage("login.error.too_long", ["parameter": tooLong])))))
        }
        let opening = try await services.signIn.open(
            request, tenantID: tenant.id, browser: pages.cookie.valueOrNew(in: RequestScope.requestHeaders),
            session: pages.session.value(in: RequestScope.requestHeaders), idpHint: q.idpHint ?? q.kcIdpHint, callbackURL: Self.federationCallbackURL(issuer: issuer), issuer: issuer,
            stepUp: tenant.journeys)
        switch opening {
        case .form(let page), .consent(let page):
            return .ok(
                .init(
                    headers: .init(
                        cacheControl: "no-store", contentSecurityPolicy: pages.policy(page),
                        setCookie: pages.cookie.setCookie(page.browser)),
                    body: .textHtmlCharsetUtf8(.init(pages.form(page)))))
        case .upstream(let location, let browser):
            let cookie = CSRFCookie.federation(issuer: issuer)
            return .found(.init(headers: .init(location: location, setCookie: cookie.setCookie(browser))))
        case .exit(.redirect(let location)):
            return .found(.init(headers: .init(location: location)))
        case .exit(.errorPage(let key)):
            return .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
                    body: .textHtmlCharsetUtf8(.init(pages.errorPage(key)))))
        }
    }

    /// The tenant's redirect URI at its identity providers.
    static func federationCallbackURL(issuer: String) -> String {
        issuer + "/oauth2/idp/callback"
    }

    func postAuthorize(_ input: Operations.PostAuthorize.Input) async throws -> Operations.PostAuthorize.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else {
            throw GatewayProblem.invalidRequest("expected a form")
        }
        let wantsJSON =
            input.headers.accept.contains { $0.contentType == .json }
            && !input.headers.accept.contains { $0.contentType == .textHtmlCharsetUtf8 }
        let request = AuthorizationRequest(
            responseType: form.responseType, clientID: form.clientId, redirectURI: form.redirectUri, scope: form.scope,
            state: form.state,
            nonce: form.nonce, codeChallenge: form.codeChallenge, codeChallengeMethod: form.codeChallengeMethod,
            prompt: form.prompt,
            loginHint: form.loginHint, acrValues: form.acrValues, requestURI: form.requestUri, uiLocales: form.uiLocales,
            maxAge: form.maxAge
        )
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let pages = SignInPages(
            tenant: tenant, texts: await loginTexts(tenantID: tenant.id, uiLocales: request.uiLocales),
            request: request, cookie: CSRFCookie(issuer: issuer), session: SessionCookie(issuer: issuer, tenantID: tenant.id))
        let poster: BrowserSignIn.Poster =
            wantsJSON
            ? .native : .browser(cookie: pages.cookie.value(in: RequestScope.requestHeaders), csrfToken: form.csrfToken)
        let step = try await services.signIn.submit(
            request, tenantID: tenant.id, poster: poster,
            fields: .init(
                username: form.username, password: form.password, authSession: form.authSession, otp: form.otp,
                consentSession: form.consentSession, consent: form.consent?.rawValue),
            address: RequestScope.current?.clientAddress, issuer: issuer, stepUp: tenant.journeys)
        return wantsJSON ? pages.json(step) : pages.html(step)
    }

    func pushAuthorizationRequest(
        _ input: Operations.PushAuthorizationRequest.Input
    ) async throws -> Operations.PushAuthorizationRequest.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else {
            throw GatewayProblem.invalidRequest("expected a form")
        }
        let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
        let client = try await services.auth.authenticateClient(tenantID: tenant.id, clientID: clientID, secret: secret)
        guard form.requestUri == nil else {
            throw OAuthError.invalidRequest("request_uri is not allowed in a pushed request")
        }
        let request = AuthorizationRequest(
            responseType: form.responseType, clientID: client.clientID, redirectURI: form.redirectUri,
            scope: form.scope, state: form.state,
            nonce: form.nonce, codeChallenge: form.codeChallenge, codeChallengeMethod: form.codeChallengeMethod,
            prompt: form.prompt,
            loginHint: form.loginHint, acrValues: form.acrValues)
        do {
            _ = try await services.auth.validate(request, tenantID: tenant.id, consumePAR: false, pushed: true)
        } catch let failure as AuthorizationFailure {
            switch failure {
            case .errorPage(let reason): throw OAuthError.invalidRequest(reason.message)
            case .redirect(let error, _, _): throw error
            }
        }
        let requestURI = try await services.auth.push(request, client: client)
        return .created(
            .init(
                headers: .init(cacheControl: "no-store"),
                body: .json(.init(requestUri: requestURI, expiresIn: AuthorizationServer.parLifetime))))
    }

    /// The first parameter longer than the contract allows (the generated server does not check maxLength).
    static func overlongParameter(_ r: AuthorizationRequest) -> String? {
        ParameterLength.firstOverlong([
            ("response_type", r.responseType, 64), ("client_id", r.clientID, 128),
            ("redirect_uri", r.redirectURI, 1024), ("scope", r.scope, 512),
            ("state", r.state, 512), ("nonce", r.nonce, 512), ("code_challenge", r.codeChallenge, 256),
            ("code_challenge_method", r.codeChallengeMethod, 16),
            ("prompt", r.prompt, 64), ("login_hint", r.loginHint, 256), ("acr_values", r.acrValues, 256),
            ("request_uri", r.requestURI, 256), ("max_age", r.maxAge, 10),
        ])
    }


    static func errorBody(_ error: OAuthError) -> Components.Schemas.OAuthError {
        .init(error: error.code, errorDescription: error.description)
    }

    /// Client credentials from the form, else from `Authorization: Basic` (RFC 6749 §2.3.1).
    static func clientCredentials(_ formID: String?, _ formSecret: String?) -> (String?, String?) {
        if let header = RequestScope.current?.authorization, header.lowercased().hasPrefix("basic "),
           let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
           let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") {
            let id = String(text[..<colon]).removingPercentEncoding
            let secret = String(text[text.index(after: colon)...]).removingPercentEncoding
            return (id, secret)
        }
        return (formID, formSecret)
    }

    /// The sign-in page's texts: the language from `ui_locales`, then `Accept-Language` (the
    /// built-in languages and those the tenant added); the tenant's `login.*` and `journey.*`
    /// localization overrides applied (none when the store is unavailable). `locale` given: that
    /// language (a journey's, chosen at its start).
    func loginTexts(tenantID: String, uiLocales: String?, locale: String? = nil) async -> LoginTexts {
        let overrides =
            (try? await services.userState.localizationResolver.overridesByLanguage(
                tenantID: tenantID, keyPrefixes: LoginTexts.prefixes)) ?? [:]
        let chosen =
            locale
            ?? LoginTexts.negotiate(
                uiLocales: uiLocales, acceptLanguage: RequestScope.header(.acceptLanguage),
                tenantLanguages: Set(overrides.keys))
        return LoginTexts(locale: chosen, tenantOverrides: overrides)
    }
}
