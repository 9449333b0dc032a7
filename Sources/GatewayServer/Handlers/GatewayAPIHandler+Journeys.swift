import Foundation
import GatewayAPI
import GatewayCore
import OpenAPIRuntime

extension GatewayAPIHandler {
    typealias JourneyJSON = Components.Schemas.JourneyState

    /// `POST /t/{tenant}/v1/journeys`: translates the start to a ``JourneyStart`` and the first
    /// screen to JSON in the negotiated language. Refusals are thrown as problems (OAuth codes
    /// kept).
    func startJourney(_ input: Operations.StartJourney.Input) async throws -> Operations.StartJourney.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("expected a JSON body") }
        try RequestValidation.length(RequestScope.header(.acceptLanguage), 0...1000, "Accept-Language")
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
        let party = JourneyParty(relyingParty(of: tenant), name: tenant.displayName)
        let (journey, screen) = try await services.journeys.start(
            request, tenantID: tenant.id, settings: tenant.journeys, party: party)
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
        try RequestValidation.length(RequestScope.header(.acceptLanguage), 0...1000, "Accept-Language")
        let values = try Self.journeyValues(body.values?.additionalProperties ?? [:])
        guard body.action.unicodeScalars.count <= 64 else { throw GatewayProblem.invalidRequest("action is too long") }
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

    /// The step's values as the engine takes them: texts as they are, a passkey's credential
    /// (an object) as its JSON. At most 16, of 1024 characters each, a credential 8 KiB.
    static func journeyValues(
        _ given: [String: Components.Schemas.JourneyAction.ValuesPayload.AdditionalPropertiesPayload]
    ) throws -> [String: String] {
        guard given.count <= 16, given.keys.allSatisfy({ $0.unicodeScalars.count <= 64 }) else {
            throw GatewayProblem.invalidRequest("at most 16 values of 1024 characters each")
        }
        var values: [String: String] = [:]
        for (name, value) in given {
            switch value {
            case .case1(let text):
                guard text.unicodeScalars.count <= 1024 else {
                    throw GatewayProblem.invalidRequest("at most 16 values of 1024 characters each")
                }
                values[name] = text
            case .case2(let object):
                let json = String(decoding: try JSONEncoder().encode(object.additionalProperties), as: UTF8.self)
                guard json.utf8.count <= JourneyEngine.maximumCredentialLength else {
                    throw GatewayProblem.invalidRequest("a passkey's credential is at most 8 KiB")
                }
                values[name] = json
            }
        }
        return values
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
                    pattern: field.pattern, value: field.value, options: field.options.flatMap(passkeyOptionsJSON).map { .init(additionalProperties: $0) })
            },
            actions: screen.actions.map { .init(name: $0.rawValue, label: texts.text("journey.action.\($0.rawValue)")) },
            messages: screen.messages.map { .init(field: $0.field, code: $0.key, text: texts.text($0.key, $0.values)) })
    }
}

/// A passkey field's options as the contract's free-form object (the WebAuthn JSON as it is).
private func passkeyOptionsJSON(_ options: JourneyScreen.PasskeyOptions) -> OpenAPIObjectContainer? {
    (try? options.json()).flatMap { try? JSONDecoder().decode(OpenAPIObjectContainer.self, from: $0) }
}
