import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    /// `GET /t/{tenant}/journeys/{id}`: the journey's current screen as the hosted page's form.
    func getJourneyPage(_ input: Operations.GetJourneyPage.Input) async throws -> Operations.GetJourneyPage.Output {
        let tenant = try RequestScope.requireTenant()
        guard let journey = try await services.journeys.journey(id: input.path.id, tenantID: tenant.id),
            let screen = services.journeys.screen(of: journey, settings: tenant.journeys)
        else {
            return .notFound(try await journeyPageEnded(tenant))
        }
        let texts = await loginTexts(tenantID: tenant.id, uiLocales: nil, locale: journey.locale)
        let (html, headers) = journeyPage(journey, screen, tenant: tenant, texts: texts)
        return .ok(
            .init(
                headers: .init(
                    cacheControl: "no-store", contentSecurityPolicy: headers.policy, setCookie: headers.setCookie),
                body: .textHtmlCharsetUtf8(.init(html))))
    }

    /// `POST /t/{tenant}/journeys/{id}`: one action from the hosted page, its CSRF token
    /// checked against the page's cookie before anything else is read.
    func postJourneyPage(_ input: Operations.PostJourneyPage.Input) async throws -> Operations.PostJourneyPage.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else { throw GatewayProblem.invalidRequest("expected a form") }
        if let tooLong = ParameterLength.firstOverlong([
            ("action", form.action, 64), ("csrf_token", form.csrfToken, 256), ("identifier", form.identifier, 200),
            ("password", form.password, 1024), ("code", form.code, 16), ("username", form.username, 200),
            ("email", form.email, 254), ("phone", form.phone, 16), ("name", form.name, 200),
            ("credential", form.credential, 4096),
        ]) {
            throw GatewayProblem.invalidRequest("\(tooLong) is too long")
        }
        guard let journey = try await services.journeys.journey(id: input.path.id, tenantID: tenant.id) else {
            return .notFound(try await journeyPageEnded(tenant))
        }
        let texts = await loginTexts(tenantID: tenant.id, uiLocales: nil, locale: journey.locale)
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let cookie = CSRFCookie(issuer: issuer)
        guard let browser = cookie.value(in: RequestScope.requestHeaders),
            services.csrf.verify(form.csrfToken, binding: Self.journeyBinding(journey.id, browser))
        else {
            return .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
                    body: .textHtmlCharsetUtf8(.init(LoginPage.error(texts.text("login.error.expired"), texts: texts)))))
        }
        let values = [
            ("identifier", form.identifier), ("password", form.password), ("code", form.code),
            ("username", form.username), ("email", form.email), ("phone", form.phone), ("name", form.name),
            ("credential", form.credential),
        ].reduce(into: [String: String]()) { values, pair in if let value = pair.1 { values[pair.0] = value } }
        let outcome: JourneyOutcome
        do {
            outcome = try await services.journeys.advance(
                journey, settings: tenant.journeys, action: form.action, values: values,
                address: RequestScope.current?.clientAddress, onHostedPage: true)
        } catch JourneyError.notFound {
            return .notFound(try await journeyPageEnded(tenant))
        }
        switch outcome {
        case .authorizationCode(let code):
            return .seeOther(
                .init(
                    headers: .init(
                        location: AuthorizationServer.redirect(
                            journey.redirectURI, ["code": code, "state": journey.state, "iss": issuer]))))
        case .signedIn(let code, let session):
            return .seeOther(
                .init(
                    headers: .init(
                        location: AuthorizationServer.redirect(
                            journey.redirectURI, ["code": code, "state": journey.state, "iss": issuer]),
                        setCookie: SessionCookie(issuer: issuer, tenantID: tenant.id).setCookie(session))))
        case .screen(let screen):
            let (html, headers) = journeyPage(journey, screen, tenant: tenant, texts: texts)
            return .ok(
                .init(
                    headers: .init(
                        cacheControl: "no-store", contentSecurityPolicy: headers.policy, setCookie: headers.setCookie),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .refused(let screen):
            let (html, headers) = journeyPage(journey, screen, tenant: tenant, texts: texts)
            return .unprocessableContent(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: headers.policy),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .throttled(let screen, let retryAfter):
            let (html, headers) = journeyPage(journey, screen, tenant: tenant, texts: texts)
            return .tooManyRequests(
                .init(
                    headers: .init(
                        retryAfter: String(BrowserSignIn.wholeSeconds(retryAfter)), cacheControl: "no-store",
                        contentSecurityPolicy: headers.policy),
                    body: .textHtmlCharsetUtf8(.init(html))))
        }
    }

    /// The CSRF binding of a journey's page in one browser.
    static func journeyBinding(_ id: String, _ browser: String) -> String { "journey:\(id):\(browser)" }

    /// The page of `screen`, with a CSRF token bound to the browser's cookie (set when new) and
    /// a policy that lets the form's answer go on to the journey's redirect URI.
    private func journeyPage(
        _ journey: Journey, _ screen: JourneyScreen, tenant: Tenant, texts: LoginTexts
    ) -> (html: String, headers: (policy: String, setCookie: String)) {
        let cookie = CSRFCookie(issuer: services.issuerBase.issuer(tenantID: tenant.id))
        let browser = cookie.valueOrNew(in: RequestScope.requestHeaders)
        let csrf = services.csrf.issue(binding: Self.journeyBinding(journey.id, browser))
        let policy = LoginPage.contentSecurityPolicy(redirectingTo: journey.redirectURI, logoURL: tenant.theme.logoURL)
        return (JourneyPage.render(screen, tenant: tenant, texts: texts, csrf: csrf), (policy, cookie.setCookie(browser)))
    }

    /// The page of a journey that is unknown, finished or expired, in the browser's language.
    private func journeyPageEnded(_ tenant: Tenant) async throws -> Components.Responses.JourneyPageNotFound {
        let texts = await loginTexts(tenantID: tenant.id, uiLocales: nil)
        return .init(
            headers: .init(cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
            body: .textHtmlCharsetUtf8(.init(LoginPage.error(texts.text("journey.error.ended"), texts: texts))))
    }
}
