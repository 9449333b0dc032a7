import AsyncHTTPClient
import Foundation
import GatewayAPI
import NIOCore
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// The journey endpoints (issue 63 §2) over real sockets against a real gateway and Redis: a
/// native app starts a sign-in, draws each screen from its JSON, and redeems the code it ends
/// with; refusals are problems; screens are worded in the asked language.
@Suite("Journey endpoints", .serialized)
struct JourneyEndpointTests {
    typealias State = Components.Schemas.JourneyState

    func withKit(
        totp: Bool = false, signUp: Bool = false, _ body: @Sendable @escaping (OAuthTestKit, String?) async throws -> Void
    ) async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "journey-" + UUID().uuidString.prefix(6).lowercased()
            if signUp { try await kit.useTenantWithSignUp() }
            try await kit.setUp()
            try await body(kit, totp ? try await kit.addSecondFactor() : nil)
        }
    }

    static func start(
        _ kit: OAuthTestKit, kind: Components.Schemas.JourneyStart.KindPayload = .signIn, clientID: String? = nil,
        uiLocales: String? = nil, loginHint: String? = nil, redirect: String? = nil, acrValues: String? = nil
    ) async throws -> Operations.StartJourney.Output {
        try await kit.client.startJourney(
            path: .init(tenant: kit.tenant),
            body: .json(
                .init(
                    kind: kind, clientId: clientID ?? kit.clientID, codeChallenge: OAuthTestKit.challenge,
                    codeChallengeMethod: .s256, scope: "openid profile", nonce: "n-journey", acrValues: acrValues,
                    loginHint: loginHint, redirectUri: redirect ?? kit.redirectURI, uiLocales: uiLocales)))
    }

    static func step(
        _ kit: OAuthTestKit, _ id: String, _ action: String, _ values: [String: String] = [:]
    ) async throws -> Operations.AdvanceJourney.Output {
        try await kit.client.advanceJourney(
            path: .init(tenant: kit.tenant, id: id),
            body: .json(.init(action: action, values: .init(additionalProperties: values.mapValues { .case1($0) }))))
    }

    static func screen(_ output: Operations.AdvanceJourney.Output) throws -> State {
        guard case .JourneyState(let state) = try output.ok.body.json else { throw CancellationError() }
        return state
    }

    @Test("sign-in in Japanese: identify, a wrong password (422, worded), the right one, a code redeemed without redirect_uri")
    func signIn() async throws {
        try await withKit { kit, _ in
            let started = try await Self.start(kit, uiLocales: "ja en", loginHint: kit.username).created
            #expect(started.headers.cacheControl == "no-store")
            let first = try started.body.json
            #expect(first.screen.name == "identify" && first.screen.title.hasSuffix("にサインイン"))
            #expect(first.screen.fields.map(\.label) == ["ユーザー名"] && first.screen.fields[0].value == kit.username)
            #expect(first.screen.actions.map(\.name) == ["submit"] && first.screen.actions[0].label == "次へ")
            #expect(first.hostedUrl == kit.issuer + "/journeys/" + first.id)
            #expect(first.expiresAt.timeIntervalSinceNow > 540 && first.expiresAt.timeIntervalSinceNow <= 600)

            let password = try Self.screen(try await Self.step(kit, first.id, "submit", ["identifier": kit.username]))
            #expect(password.screen.name == "password" && password.screen.fields.map(\._type) == [.password])
            let wrong = try await Self.step(kit, first.id, "submit", ["password": "not it"]).unprocessableContent.body.json
            #expect(wrong.screen.name == "password")
            #expect(wrong.screen.messages.map(\.code) == ["journey.error.credentials"])
            #expect(wrong.screen.messages.first?.text == "サインイン名またはパスワードが正しくありません。")

            guard case .JourneyFinished(let finished) = try await Self.step(
                kit, first.id, "submit", ["password": kit.password]).ok.body.json
            else { Issue.record("no code"); return }
            let tokens = try await kit.exchangeWithoutRedirect(finished.authorizationCode).ok.body.json
            #expect(try jwtClaims(try #require(tokens.idToken))["nonce"]?.stringValue == "n-journey")
            // Used once.
            let again = try await Self.step(kit, first.id, "submit", ["password": kit.password])
            #expect(try again.notFound.body.applicationProblemJson.code == "journey_not_found")
        }
    }

    @Test("an account with an authenticator app gets the totp screen; the right code ends it")
    func secondFactor() async throws {
        try await withKit(totp: true) { kit, secret in
            let first = try await Self.start(kit).created.body.json
            _ = try await Self.step(kit, first.id, "submit", ["identifier": kit.username])
            let totp = try Self.screen(try await Self.step(kit, first.id, "submit", ["password": kit.password]))
            #expect(totp.screen.name == "totp" && totp.screen.title == "Enter your one-time code")
            #expect(totp.screen.fields.map(\.name) == ["code"] && totp.screen.fields[0]._type == .code)
            let wrong = try await Self.step(kit, first.id, "submit", ["code": "12"]).unprocessableContent.body.json
            #expect(wrong.screen.messages.map(\.field) == ["code"])
            let seed = try #require(secret)
            let code = try #require(TOTP(base32: seed)).code(step: TOTP.step(at: Date()))
            guard case .JourneyFinished = try await Self.step(kit, first.id, "submit", ["code": code]).ok.body.json
            else { Issue.record("no code"); return }
        }
    }

    @Test("refusals are problems: not first-party, an unknown client, a kind not run, an unknown journey, too many values")
    func refusals() async throws {
        try await withKit { kit, _ in
            var partner = OAuthClient(tenantID: kit.tenant, clientID: kit.clientID + "-web", redirectURIs: ["https://p.example/cb"])
            partner.defaultScopes = OAuthClient.newDefaultScopes(firstParty: false)
            try await kit.store.addClient(partner, secretHash: nil)
            let notFirstParty = try await Self.start(kit, clientID: partner.clientID, redirect: "https://p.example/cb")
            #expect(try notFirstParty.badRequest.body.applicationProblemJson.code == "unauthorized_client")
            let unknown = try await Self.start(kit, clientID: "no-such-client")
            #expect(try unknown.unauthorized.body.applicationProblemJson.code == "invalid_client")
            let elsewhere = try await Self.start(kit, redirect: "https://evil.example/cb")
            #expect(try elsewhere.badRequest.body.applicationProblemJson.code == "invalid_request")
            let signUp = try await Self.start(kit, kind: .signUp)
            #expect(try signUp.unprocessableContent.body.applicationProblemJson.code == "journey_kind_not_offered")
            let missing = try await Self.step(kit, String(repeating: "x", count: 43), "submit")
            #expect(try missing.notFound.body.applicationProblemJson.code == "journey_not_found")
            let first = try await Self.start(kit).created.body.json
            let many = Dictionary(uniqueKeysWithValues: (0..<17).map { ("f\($0)", "v") })
            let tooMany = try await Self.step(kit, first.id, "submit", many)
            #expect(try tooMany.badRequest.body.applicationProblemJson.code == "invalid_request")
            // An action the screen does not offer is the same screen with a message.
            let odd = try await Self.step(kit, first.id, "sign-up").unprocessableContent.body.json
            #expect(odd.screen.name == "identify" && odd.screen.messages.map(\.code) == ["journey.error.action"])
        }
    }

    @Test("the sign-in throttle holds a journey too: 429 with Retry-After and the same screen, worded")
    func throttled() async throws {
        try await withKit { kit, _ in
            let first = try await Self.start(kit).created.body.json
            _ = try await Self.step(kit, first.id, "submit", ["identifier": kit.username])
            for _ in 0..<5 { _ = try await Self.step(kit, first.id, "submit", ["password": "wrong"]).unprocessableContent }
            let held = try await Self.step(kit, first.id, "submit", ["password": kit.password]).tooManyRequests
            #expect(Int(held.headers.retryAfter ?? "") ?? 0 >= 1)
            let state = try held.body.json
            #expect(state.screen.name == "password" && state.screen.messages.map(\.code) == ["journey.error.throttled"])
            #expect(state.screen.messages.first?.text.contains("\(held.headers.retryAfter ?? "?") s") == true)
        }
    }

    @Test("a tenant's journey.* localization override rewords a label")
    func tenantWording() async throws {
        try await withKit { kit, _ in
            try await kit.harness.bootstrap.stores.localization.set(
                ["journey.field.identifier.username": "Member ID"], tenantID: kit.tenant, locale: "en")
            let first = try await Self.start(kit, uiLocales: "en").created.body.json
            #expect(first.screen.fields.first?.label == "Member ID")
        }
    }

    @Test("sign-up over HTTP where the tenant allows it: register, a refusal beside its field, an account, tokens")
    func signUp() async throws {
        try await withKit { kit, _ in
            let refused = try await Self.start(kit, kind: .signUp)
            #expect(try refused.unprocessableContent.body.applicationProblemJson.code == "journey_kind_not_offered")
        }
        try await withKit(signUp: true) { kit, _ in
            let first = try await Self.start(kit, kind: .signUp, uiLocales: "en").created.body.json
            #expect(first.screen.name == "register" && first.screen.title == "Create your account")
            #expect(first.screen.fields.map(\.name) == ["username", "name", "password"])
            #expect(first.screen.fields.last?.autocomplete == "new-password")
            let short = try await Self.step(kit, first.id, "submit", ["username": "newbie", "password": "short"])
            let messages = try short.unprocessableContent.body.json.screen.messages
            #expect(messages.map(\.field) == ["password"] && messages.first?.text == "Choose a password of at least 8 characters.")
            let name = "newbie-" + UUID().uuidString.prefix(6).lowercased()
            guard case .JourneyFinished(let finished) = try await Self.step(
                kit, first.id, "submit", ["username": name, "password": "a long enough one"]).ok.body.json
            else { Issue.record("no code"); return }
            let tokens = try await kit.exchangeWithoutRedirect(finished.authorizationCode).ok.body.json
            let user = try #require(try await kit.store.user(tenantID: kit.tenant, username: name))
            #expect(try jwtClaims(try #require(tokens.idToken))["sub"]?.stringValue == user.subject)
        }
    }
}

extension JourneyEndpointTests {
    @Test(
        "a native client written from docs/journeys.md (Python): sign-up with e-mail and SMS codes, sign-in by password and by SMS, recovery ending the sessions, My account proving a new address, and a screen it does not know done on the hosted page",
        .enabled(
            if: PythonScript.canImport("requests") && SMTPSink.available,
            "python3 with requests and aiosmtpd is not installed (make test installs them)"))
    func nativeClientFromTheDocs() async throws {
        try await SMTPSink.with(.plain) { sink in
            try await SMSFake.with { sms in
                try await GatewayHarness.withGateway { harness, client, port in
                    var kit = OAuthTestKit(harness: harness, client: client, port: port)
                    kit.clientID = "journey-" + UUID().uuidString.prefix(6).lowercased()
                    try await kit.useTenant(
                        journeys: JourneySettings(
                            signUp: true, identifiers: [.username, .email, .phone], verify: [.email, .phone],
                            recovery: [.email], factors: [.password, .smsCode, .totp]),
                        smtpPort: sink.port, sms: sms)
                    try await kit.setUp()
                    let secret = try await kit.addSecondFactor()
                    let (status, output) = try await PythonScript.run(
                        "journey_client.py",
                        [kit.base, kit.tenant, kit.clientID, kit.redirectURI, kit.username, kit.password, secret,
                            sink.folder.path, sms.folder.path])
                    #expect(status == 0, "\(output)")
                    for step in [
                        "ok sign-up", "ok sign-in", "ok wrong-password journey.error.credentials", "ok sms-sign-in",
                        "ok recovery", "ok my-account", "ok hosted-totp",
                    ] {
                        #expect(output.contains(step), "\(step) missing: \(output)")
                    }
                }
            }
        }
    }
}
