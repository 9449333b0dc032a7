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
            acrValues: q.acrValues, requestURI: q.requestUri, uiLocales: q.uiLocales)
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let texts = await loginTexts(tenantID: tenant.id, uiLocales: request.uiLocales)
        if let tooLong = Self.overlongParameter(request) {
            return .badRequest(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
                    body: .textHtmlCharsetUtf8(
                        .init(LoginPage.error(texts.text("login.error.too_long", ["parameter": tooLong]), texts: texts))
                    )))
        }
        do {
            let validated = try await services.auth.validate(request, tenantID: tenant.id, consumePAR: false)
            let providers = try await services.federation.signIn.providers(tenantID: tenant.id)
            let hint = q.idpHint ?? q.kcIdpHint
            if let provider = providers.first(where: { $0.alias == hint }) ?? providers.first(where: \.autoRedirect) {
                return try await signInUpstream(
                    request, validated: validated, provider: provider, tenantID: tenant.id, issuer: issuer)
            }
            let cookie = CSRFCookie(issuer: issuer)
            let browser = cookie.valueOrNew(in: RequestScope.requestHeaders)
            let action = "/t/\(tenant.id)/oauth2/authorize"
            let links = Self.providerLinks(providers, action: action, request: request)
            let html = LoginPage.form(
                tenant: tenant, texts: texts, action: action, request: request,
                csrf: services.csrf.issue(binding: Self.csrfBinding(tenant.id, validated, browser: browser)),
                username: validated.request.loginHint, error: nil,
                providers: links)
            let policy = LoginPage.contentSecurityPolicy(
                redirectingTo: validated.redirectURI, logoURL: tenant.theme.logoURL)
            return .ok(
                .init(
                    headers: .init(
                        cacheControl: "no-store", contentSecurityPolicy: policy, setCookie: cookie.setCookie(browser)),
                    body: .textHtmlCharsetUtf8(.init(html))))
        } catch let failure as AuthorizationFailure {
            switch failure {
            case .errorPage(let reason):
                return .forbidden(
                    .init(
                        headers: .init(
                            cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
                        body: .textHtmlCharsetUtf8(.init(LoginPage.error(texts.text(reason.key), texts: texts)))))
            case .redirect(let error, let redirectURI, let state):
                return .found(
                    .init(
                        headers: .init(
                            location: AuthorizationServer.errorRedirect(
                                error, redirectURI: redirectURI, state: state, issuer: issuer))))
            }
        }
    }

    /// Sends the browser to an identity provider (a PAR request is taken now: the sign-in
    /// may outlive its 60 seconds), bound to the browser by the federation cookie.
    private func signInUpstream(
        _ request: AuthorizationRequest, validated: ValidatedAuthorization, provider: IdentityProvider,
        tenantID: String,
        issuer: String
    ) async throws -> Operations.GetAuthorize.Output {
        // Validated already; a PAR request is validated again to take its request_uri.
        let validated =
            request.requestURI == nil
            ? validated : try await services.auth.validate(request, tenantID: tenantID, consumePAR: true)
        let cookie = CSRFCookie.federation(issuer: issuer)
        let browser = CSRFCookie.newValue()
        let location = try await services.federation.signIn.begin(
            validated, pushed: request.requestURI != nil, provider: provider, browser: browser,
            callbackURL: Self.federationCallbackURL(issuer: issuer))
        return .found(.init(headers: .init(location: location, setCookie: cookie.setCookie(browser))))
    }

    /// The tenant's redirect URI at its identity providers.
    static func federationCallbackURL(issuer: String) -> String {
        issuer + "/oauth2/idp/callback"
    }

    /// The sign-in page's "Continue with …" links: the authorization request again, with each
    /// provider's `idp_hint`.
    static func providerLinks(
        _ providers: [IdentityProvider], action: String, request: AuthorizationRequest
    ) -> [(name: String, href: String)] {
        providers.map { (name: $0.displayName, href: authorizeLink(action, request, idpHint: $0.alias)) }
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
            loginHint: form.loginHint, acrValues: form.acrValues, requestURI: form.requestUri, uiLocales: form.uiLocales
        )
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let texts = await loginTexts(tenantID: tenant.id, uiLocales: request.uiLocales)
        /// An error page in the page's language; JSON callers get the English text.
        func page(_ key: String) -> Operations.PostAuthorize.Output {
            wantsJSON
                ? .forbidden(
                    .init(
                        headers: .init(cacheControl: "no-store"),
                        body: .json(
                            .init(error: "invalid_request", errorDescription: LoginTexts(locale: "en").text(key)))))
                : .forbidden(
                    .init(
                        headers: .init(
                            cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
                        body: .textHtmlCharsetUtf8(.init(LoginPage.error(texts.text(key), texts: texts)))))
        }
        func redirect(_ location: String) -> Operations.PostAuthorize.Output {
            wantsJSON
                ? .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(redirectTo: location))))
                : .seeOther(.init(headers: .init(location: location)))
        }
        do {
            var validated = try await services.auth.validate(request, tenantID: tenant.id, consumePAR: false)
            let cookie = CSRFCookie(issuer: issuer)
            // The browser's cookie: the form's token is bound to it (native JSON posts have none).
            let browser = cookie.value(in: RequestScope.requestHeaders)
            if !wantsJSON {
                guard let browser, let token = form.csrfToken,
                    services.csrf.verify(token, binding: Self.csrfBinding(tenant.id, validated, browser: browser))
                else {
                    return page("login.error.expired")
                }
            }
            let policy = LoginPage.contentSecurityPolicy(
                redirectingTo: validated.redirectURI, logoURL: tenant.theme.logoURL)
            let username = form.username ?? ""
            /// The form again with `message`, its provider links, and a token for the same browser.
            func formAgain(_ message: String) async throws -> (html: String, setCookie: String?) {
                guard let browser else { return ("", nil) }
                let action = "/t/\(tenant.id)/oauth2/authorize"
                let providers = try await services.federation.signIn.providers(tenantID: tenant.id)
                let html = LoginPage.form(
                    tenant: tenant, texts: texts, action: action, request: request,
                    csrf: services.csrf.issue(binding: Self.csrfBinding(tenant.id, validated, browser: browser)),
                    username: username, error: message,
                    providers: Self.providerLinks(providers, action: action, request: request))
                return (html, cookie.setCookie(browser))
            }
            // The one-time-code page of users with a second factor (browsers only).
            let otpStep = browser.map {
                OTPStep(
                    handler: self, tenant: tenant, validated: validated, request: request, texts: texts, browser: $0,
                    cookie: cookie, policy: policy)
            }
            let user: LocalUser
            if let authSession = form.authSession {
                // The one-time-code step; the password was right before.
                guard !wantsJSON, let otpStep else { return page("login.error.session") }
                switch try await otpStep.verify(authSession: authSession, code: form.otp) {
                case .signedIn(let signedIn): user = signedIn
                case .answer(let output): return output
                }
            } else {
                switch try await services.auth.authenticate(
                    tenantID: tenant.id, username: username, password: form.password ?? "",
                    address: RequestScope.current?.clientAddress)
                {
                case .signedIn(let signedIn):
                    user = signedIn
                case .failed:
                    let message = texts.text("login.error.credentials")
                    if wantsJSON {
                        return .unauthorized(
                            .init(
                                headers: .init(cacheControl: "no-store"),
                                body: .json(.init(error: "access_denied", errorDescription: message))))
                    }
                    let again = try await formAgain(message)
                    return .unauthorized(
                        .init(
                            headers: .init(
                                cacheControl: "no-store", contentSecurityPolicy: policy, setCookie: again.setCookie),
                            body: .textHtmlCharsetUtf8(.init(again.html))))
                case .throttled(let retryAfter):
                    let seconds = Self.wholeSeconds(retryAfter)
                    let message = texts.text("login.error.throttled", ["seconds": String(seconds)])
                    if wantsJSON {
                        return .tooManyRequests(
                            .init(
                                headers: .init(cacheControl: "no-store", retryAfter: String(seconds)),
                                body: .json(.init(error: "temporarily_unavailable", errorDescription: message))))
                    }
                    let again = try await formAgain(message)
                    return .tooManyRequests(
                        .init(
                            headers: .init(
                                cacheControl: "no-store", contentSecurityPolicy: policy, setCookie: again.setCookie,
                                retryAfter: String(seconds)), body: .textHtmlCharsetUtf8(.init(again.html))))
                }
                if user.totpSecret != nil {
                    // A second factor: native JSON posts cannot show the code page.
                    guard !wantsJSON, let otpStep else {
                        return .unauthorized(
                            .init(
                                headers: .init(cacheControl: "no-store"),
                                body: .json(
                                    .init(
                                        error: "insufficient_authorization",
                                        errorDescription:
                                            "this user has a second factor: sign in through the authorization challenge endpoint"
                                    ))))
                    }
                    return try await otpStep.start(user: user)
                }
            }
            if request.requestURI != nil {
                validated = try await services.auth.validate(request, tenantID: tenant.id, consumePAR: true)
            }
            return redirect(try await services.auth.completeAuthorization(validated, user: user, issuer: issuer))
        } catch let failure as AuthorizationFailure {
            switch failure {
            case .errorPage(let reason):
                return page(reason.key)
            case .redirect(let error, let redirectURI, let state):
                return redirect(
                    AuthorizationServer.errorRedirect(error, redirectURI: redirectURI, state: state, issuer: issuer))
            }
        }
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
        firstOverlong([
            ("response_type", r.responseType, 64), ("client_id", r.clientID, 128),
            ("redirect_uri", r.redirectURI, 1024), ("scope", r.scope, 512),
            ("state", r.state, 512), ("nonce", r.nonce, 512), ("code_challenge", r.codeChallenge, 256),
            ("code_challenge_method", r.codeChallengeMethod, 16),
            ("prompt", r.prompt, 64), ("login_hint", r.loginHint, 256), ("acr_values", r.acrValues, 256),
            ("request_uri", r.requestURI, 256),
        ])
    }

    /// The name of the first (name, value, maximum length) whose value is longer than allowed.
    static func firstOverlong(_ limits: [(name: String, value: String?, maxLength: Int)]) -> String? {
        limits.first { ($0.value?.count ?? 0) > $0.maxLength }?.name
    }

    /// What the sign-in form's CSRF token is bound to: the tenant, client and redirect URI
    /// of the request, and the browser's ``CSRFCookie`` value.
    static func csrfBinding(_ tenantID: String, _ v: ValidatedAuthorization, browser: String) -> String {
        "authorize|\(tenantID)|\(v.client.clientID)|\(v.redirectURI)|\(browser)"
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
    /// built-in languages and those the tenant added); the tenant's `login.*` localization
    /// overrides applied (none when the store is unavailable).
    func loginTexts(tenantID: String, uiLocales: String?) async -> LoginTexts {
        let overrides =
            (try? await services.userState.localizationResolver.overridesByLanguage(
                tenantID: tenantID, keyPrefix: "login.")) ?? [:]
        let locale = LoginTexts.negotiate(
            uiLocales: uiLocales, acceptLanguage: RequestScope.header(.acceptLanguage),
            tenantLanguages: Set(overrides.keys))
        return LoginTexts(locale: locale, tenantOverrides: overrides)
    }
}
