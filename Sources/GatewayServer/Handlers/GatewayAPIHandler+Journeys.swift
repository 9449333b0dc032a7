import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    typealias JourneyJSON = Components.Schemas.JourneyState

    /// `POST /t/{tenant}/v1/journeys`: translates the start to a ``JourneyStart`` and the first
    /// screen to JSON in the negotiated language. Refusals are thrown as problems (OAuth codes
    /// kept).
    func startJourney(_ input: Operations.StartJourney.Input) async throws -> Operations.StartJourney.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("expected a JSON body") }
        if let tooLong = ParameterLength.firstOverlong([
            ("clientId", body.clientId, 128), ("codeChallenge", body.codeChallenge, 128), ("scope", body.scope, 512),
            ("nonce", body.nonce, 512), ("loginHint", body.loginHint, 200), ("redirectUri", body.redirectUri, 2048),
            ("state", body.state, 512), ("uiLocales", body.uiLocales, 200), ("acrValues", body.acrValues, 512),
        ]) {
            throw GatewayProblem.invalidRequest("\(tooLong) is too long")
        }
        let texts = await loginTexts(tenantID: tenant.id, uiLocales: body.uiLocales)
        let request = JourneyStart(
            kind: Journey.Kind(rawValue: body.kind.rawValue) ?? .signIn, clientID: body.clientId,
            codeChallenge: body.codeChallenge, codeChallengeMethod: body.codeChallengeMethod.rawValue,
            scope: body.scope, nonce: body.nonce, loginHint: body.loginHint, redirectURI: body.redirectUri,
            state: body.state, locale: texts.locale, acrValues: body.acrValues)
        let (journey, screen) = try await services.journeys.start(
            request, tenantID: tenant.id, settings: tenant.journeys)
        return .created(
            .init(
                headers: .init(cacheControl: "no-store"),
                body: .json(journeyJSON(journey, screen, tenant: tenant, texts: texts))))
    }

    /// `POST /t/{tenant}/v1/journeys/{id}`: one action; the outcome becomes the next screen,
    /// the same screen with messages (422, or 429 when throttled), or the authorization code.
    func advanceJourney(_ input: Operations.AdvanceJourney.Input) async throws -> Operations.AdvanceJourney.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("expected a JSON body") }
        let values = body.values?.additionalProperties ?? [:]
        guard values.count <= 16, values.allSatisfy({ $0.key.unicodeScalars.count <= 64 && $0.value.unicodeScalars.count <= 1024 }),
            body.action.unicodeScalars.count <= 64
        else { throw GatewayProblem.invalidRequest("at most 16 values of 1024 characters each") }
        guard let journey = try await services.journeys.journey(id: input.path.id, tenantID: tenant.id) else {
            throw JourneyError.notFound
        }
        let texts = await loginTexts(tenantID: tenant.id, uiLocales: nil, locale: journey.locale)
        let outcome = try await services.journeys.advance(
            journey, settings: tenant.journeys, action: body.action, values: values,
            address: RequestScope.current?.clientAddress)
        // The journey as it stands after the step (its expiry never moves).
        func state(_ screen: JourneyScreen) -> JourneyJSON { journeyJSON(journey, screen, tenant: tenant, texts: texts) }
        switch outcome {
        case .screen(let screen):
            return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.JourneyState(state(screen)))))
        case .refused(let screen):
            return .unprocessableContent(.init(headers: .init(cacheControl: "no-store"), body: .json(state(screen))))
        case .throttled(let screen, let retryAfter):
            return .tooManyRequests(
                .init(
                    headers: .init(retryAfter: String(BrowserSignIn.wholeSeconds(retryAfter)), cacheControl: "no-store"),
                    body: .json(state(screen))))
        case .authorizationCode(let code), .signedIn(let code, _):
            // (An app's step never starts a browser session: `signedIn` is the hosted page's.)
            return .ok(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .json(.JourneyFinished(.init(authorizationCode: code)))))
        }
    }

    /// A journey and its screen as the contract draws them: labels, titles and messages in
    /// the journey's language.
    func journeyJSON(_ journey: Journey, _ screen: JourneyScreen, tenant: Tenant, texts: LoginTexts) -> JourneyJSON {
        JourneyJSON(
            id: journey.id, screen: Self.screenJSON(screen, tenant: tenant, texts: texts),
            hostedUrl: services.issuerBase.issuer(tenantID: tenant.id) + "/journeys/" + journey.id,
            expiresAt: journey.expiresAt)
    }

    static func screenJSON(_ screen: JourneyScreen, tenant: Tenant, texts: LoginTexts) -> Components.Schemas.JourneyScreen {
        .init(
            name: screen.name.rawValue, title: texts.text(screen.titleKey, ["tenant": tenant.displayName]),
            fields: screen.fields.map { field in
                .init(
                    name: field.name, _type: .init(rawValue: field.type.rawValue) ?? .text,
                    label: texts.text(field.labelKey), required: field.required, autocomplete: field.autocomplete,
                    pattern: field.pattern, value: field.value)
            },
            actions: screen.actions.map { .init(name: $0.rawValue, label: texts.text("journey.action.\($0.rawValue)")) },
            messages: screen.messages.map { .init(field: $0.field, code: $0.key, text: texts.text($0.key, $0.values)) })
    }
}
