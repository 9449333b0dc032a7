import Crypto
import Foundation
import Testing

@testable import GatewayCore
@testable import GatewaySQLite

/// Passkeys in the journeys (issue 64), without HTTP: a sign-up with a passkey and no password,
/// a sign-in with it and no identifier typed, create-passkey offered after a password sign-in,
/// and what is refused (each refusal leaving a new ceremony on the screen).
@Suite("Journey engine: passkeys")
struct JourneyPasskeyTests {
    static let origin = "https://login.acme.example"
    static let party = JourneyParty(RelyingParty(id: "login.acme.example", origins: [origin]), name: "Acme")
    static let passwordless = JourneySettings(signUp: true, identifiers: [.username], factors: [.passkey])
    static let both = JourneySettings(identifiers: [.username], factors: [.password, .passkey])

    struct World {
        let folder: TemporaryFolder
        let tenants: SQLiteTenantStore
        let store: SQLiteAuthStore
        let auth: AuthorizationServer
        let engine: JourneyEngine

        init() async throws {
            folder = try TemporaryFolder()
            tenants = try Fixtures.store(folder)
            _ = try await tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
            store = SQLiteAuthStore(tenants: tenants)
            let clock = ManualClock(frozen: true)
            let cache = MemoryCache(clock: clock.wall)
            auth = AuthorizationServer(
                store: store, cache: cache, hasher: PasswordHasher(logN: 10), memo: nil, clock: clock.wall)
            engine = JourneyEngine(
                auth: auth, cache: cache, clock: clock.wall,
                passkeys: PasskeyCeremonies(store: store, cache: cache, clock: clock.wall),
                audit: SQLiteAuditTrail(database: tenants))
            var app = OAuthClient(tenantID: "acme", clientID: "host-app", redirectURIs: ["com.acme.app:/cb"])
            app.firstParty = true
            app.defaultScopes = OAuthClient.newDefaultScopes(firstParty: true)
            try await store.addClient(app, secretHash: nil)
            try await store.addUser(
                LocalUser(
                    tenantID: "acme", username: "nina", subject: "user-nina",
                    passwordHash: try PasswordHasher(logN: 10).hash("correct horse battery")))
        }

        func start(
            _ kind: Journey.Kind = .signIn, settings: JourneySettings, acrValues: String? = nil
        ) async throws -> (Journey, JourneyScreen) {
            try await engine.start(
                JourneyStart(
                    kind: kind, clientID: "host-app",
                    codeChallenge: PKCE.challenge(for: JourneyEngineTests.verifier), codeChallengeMethod: "S256",
                    scope: "openid", acrValues: acrValues),
                tenantID: "acme", settings: settings, party: JourneyPasskeyTests.party)
        }

        func step(_ id: String, _ action: String, _ values: [String: String], settings: JourneySettings)
            async throws -> JourneyOutcome
        {
            try await engine.advance(
                id: id, tenantID: "acme", settings: settings, action: action, values: values, address: "192.0.2.1")
        }

        /// The subject and `amr` a code was issued for.
        func redeem(_ code: String) async throws -> (subject: String, amr: [String]?) {
            let grant = try #require(try await auth.codes.redeem(code, tenantID: "acme", producing: "f").granted)
            return (grant.subject, grant.amr)
        }

        /// The subject, `amr` and `acr` a code was issued for.
        func redeemWithACR(_ code: String) async throws -> (subject: String, amr: [String]?, acr: String?) {
            let grant = try #require(try await auth.codes.redeem(code, tenantID: "acme", producing: "f").granted)
            return (grant.subject, grant.amr, grant.acr)
        }
    }

    static func options(_ screen: JourneyScreen?) -> JourneyScreen.PasskeyOptions? {
        screen?.fields.first { $0.type == .passkey }?.options
    }

    static func screen(_ outcome: JourneyOutcome) -> JourneyScreen? {
        switch outcome {
        case .screen(let screen), .refused(let screen), .throttled(let screen, _): screen
        default: nil
        }
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// What the authenticator answers to a create-passkey screen.
    static func registration(_ authenticator: SoftwareAuthenticator, _ screen: JourneyScreen?, origin: String = origin)
        throws -> String
    {
        guard case .create(let options) = options(screen) else { throw CancellationError() }
        return try json(
            authenticator.registration(
                rpID: options.rp.id, challenge: Array(Base64URL.decode(options.challenge)!), origin: origin))
    }

    /// What the authenticator answers to the identify screen's passkey field.
    static func assertion(
        _ authenticator: SoftwareAuthenticator, _ screen: JourneyScreen?, subject: String, origin: String = origin
    ) throws -> String {
        guard case .get(let options) = options(screen) else { throw CancellationError() }
        return try json(
            authenticator.assertion(
                rpID: options.rpId, challenge: Array(Base64URL.decode(options.challenge)!), origin: origin,
                userHandle: Array(subject.utf8)))
    }

    @Test("sign up with a passkey and no password, then sign in with it and no name typed")
    func passwordlessSignUpAndSignIn() async throws {
        let world = try await World()
        let settings = Self.passwordless
        let (journey, register) = try await world.start(.signUp, settings: settings)
        #expect(register.name == .register && register.fields.map(\.name) == ["username", "name"])
        let created = try await world.step(journey.id, "submit", ["username": "kai", "name": "Kai"], settings: settings)
        let screen = try #require(Self.screen(created))
        #expect(screen.name == .createPasskey && screen.actions == [.submit], "no skip: the passkey is the only factor")
        guard case .create(let options) = Self.options(screen) else { Issue.record("no creation options"); return }
        #expect(options.rp == .init(id: "login.acme.example", name: "Acme") && options.user.name == "kai")
        #expect(try await world.store.user(tenantID: "acme", username: "kai") == nil, "no account before its passkey")

        // A passkey made for another origin is refused, and a new ceremony is on the screen.
        var authenticator = SoftwareAuthenticator.es256()
        let phished = try await world.step(
            journey.id, "submit", ["credential": try Self.registration(authenticator, screen, origin: "https://evil.example")],
            settings: settings)
        guard case .refused(let again) = phished else { Issue.record("a foreign origin was accepted"); return }
        #expect(again.messages == [.init(field: "credential", key: "journey.error.passkey")])
        #expect(Self.options(again) != Self.options(screen), "a new challenge")
        #expect(try await world.store.user(tenantID: "acme", username: "kai") == nil)

        guard
            case .authorizationCode(let code) = try await world.step(
                journey.id, "submit", ["credential": try Self.registration(authenticator, again)], settings: settings)
        else { Issue.record("the passkey did not sign up"); return }
        let user = try #require(try await world.store.user(tenantID: "acme", username: "kai"))
        #expect(user.passwordHash == IdentityLinker.noPassword && user.name == "Kai")
        #expect(try await world.store.passkeys(tenantID: "acme", subject: user.subject).count == 1)
        let signedUp = try await world.redeem(code)
        #expect(signedUp.subject == user.subject && signedUp.amr == ["hwk", "user"])
        let records = try await SQLiteAuditTrail(database: world.tenants)
            .records(matching: AuditQuery(chain: "acme", resourceType: .user)).items
        #expect(Set(records.compactMap(\.note?.action)) == ["sign-up", "passkey.create"])

        // Signing in: the identify screen's passkey field, no identifier typed.
        let (next, identify) = try await world.start(settings: settings)
        guard case .get(let request) = Self.options(identify) else { Issue.record("no request options"); return }
        #expect(request.allowCredentials.isEmpty && request.rpId == "login.acme.example")
        #expect(identify.fields.first { $0.type == .passkey }?.autocomplete == "webauthn")
        authenticator.signCount += 1
        let answer = try Self.assertion(authenticator, identify, subject: user.subject)
        guard case .authorizationCode(let second) = try await world.step(next.id, "submit", ["credential": answer], settings: settings)
        else { Issue.record("the passkey did not sign in"); return }
        #expect(try await world.redeem(second).subject == user.subject)

        // The same answer again (its challenge spent), or garbage: refused alike.
        let (third, identifyAgain) = try await world.start(settings: settings)
        for credential in [answer, "{\"id\": 1}", String(repeating: "x", count: 9_000)] {
            let refused = try await world.step(third.id, "submit", ["credential": credential], settings: settings)
            guard case .refused(let shown) = refused else { Issue.record("accepted: \(credential.prefix(40))"); return }
            #expect(shown.name == .identify && shown.messages.map(\.key) == ["journey.error.passkey"])
            #expect(Self.options(shown) != Self.options(identifyAgain))
        }
    }

    @Test("after a password sign-in an account without a passkey is offered one, once; skipping signs in")
    func offeredAfterAPassword() async throws {
        let world = try await World()
        let settings = Self.both
        let (journey, _) = try await world.start(settings: settings)
        _ = try await world.step(journey.id, "submit", ["identifier": "nina"], settings: settings)
        let offered = try await world.step(journey.id, "submit", ["password": "correct horse battery"], settings: settings)
        let screen = try #require(Self.screen(offered))
        #expect(screen.name == .createPasskey && screen.actions == [.submit, .skip])
        guard case .authorizationCode(let skipped) = try await world.step(journey.id, "skip", [:], settings: settings)
        else { Issue.record("skip did not sign in"); return }
        #expect(try await world.redeem(skipped) == ("user-nina", ["pwd"]))

        // Accepted the next time: the passkey kept, and not offered again.
        let (again, _) = try await world.start(settings: settings)
        _ = try await world.step(again.id, "submit", ["identifier": "nina"], settings: settings)
        let create = try await world.step(again.id, "submit", ["password": "correct horse battery"], settings: settings)
        let authenticator = SoftwareAuthenticator.es256()
        guard
            case .authorizationCode(let code) = try await world.step(
                again.id, "submit", ["credential": try Self.registration(authenticator, Self.screen(create))],
                settings: settings)
        else { Issue.record("the passkey was not made"); return }
        #expect(try await world.redeem(code) == ("user-nina", ["pwd"]))
        #expect(try await world.store.passkeys(tenantID: "acme", subject: "user-nina").map(\.name) == ["Passkey"])
        let (third, _) = try await world.start(settings: settings)
        _ = try await world.step(third.id, "submit", ["identifier": "nina"], settings: settings)
        guard
            case .authorizationCode = try await world.step(
                third.id, "submit", ["password": "correct horse battery"], settings: settings)
        else { Issue.record("offered again to an account holding a passkey"); return }
    }

    @Test("without the relying party (or the factor) no passkey field, and no passwordless sign-up")
    func offeredOnlyWithAParty() async throws {
        let world = try await World()
        let (_, identify) = try await world.start(settings: JourneySettings())
        #expect(identify.fields.map(\.name) == ["identifier"])
        await #expect(throws: JourneyError.kindNotOffered(.signUp)) {
            try await world.engine.start(
                JourneyStart(
                    kind: .signUp, clientID: "host-app", codeChallenge: PKCE.challenge(for: JourneyEngineTests.verifier),
                    codeChallengeMethod: "S256"),
                tenantID: "acme", settings: Self.passwordless, party: nil)
        }
    }

    @Test("acr_values asking a passkey class: after the password, the account's own passkey; amr and acr say so, audited")
    func stepUpWithAPasskey() async throws {
        let world = try await World()
        var settings = Self.both
        settings.stepUp = ["urn:acme:loa:3": [.passkey]]
        // Nina makes a passkey when it is offered after her password.
        var authenticator = SoftwareAuthenticator.es256()
        let (first, _) = try await world.start(settings: settings)
        _ = try await world.step(first.id, "submit", ["identifier": "nina"], settings: settings)
        let offered = try await world.step(first.id, "submit", ["password": "correct horse battery"], settings: settings)
        _ = try await world.step(first.id, "submit", ["credential": try Self.registration(authenticator, Self.screen(offered))], settings: settings)

        let (journey, _) = try await world.start(settings: settings, acrValues: "urn:acme:loa:3")
        _ = try await world.step(journey.id, "submit", ["identifier": "nina"], settings: settings)
        let asked = try await world.step(journey.id, "submit", ["password": "correct horse battery"], settings: settings)
        let screen = try #require(Self.screen(asked))
        #expect(screen.name == .passkey && screen.actions == [.submit, .back])
        guard case .get(let options) = Self.options(screen) else { Issue.record("no request options"); return }
        #expect(options.allowCredentials.map(\.id) == [Base64URL.encode(authenticator.credentialID)], "her passkeys only")

        // Another account's passkey does not step Nina up.
        var stranger = SoftwareAuthenticator.es256()
        stranger.credentialID = [9, 9, 9, 9]
        let refused = try await world.step(
            journey.id, "submit", ["credential": try Self.assertion(stranger, screen, subject: "user-nina")], settings: settings)
        guard case .refused(let again) = refused else { Issue.record("a stranger's passkey stepped up"); return }
        authenticator.signCount += 1
        guard
            case .authorizationCode(let code) = try await world.step(
                journey.id, "submit", ["credential": try Self.assertion(authenticator, again, subject: "user-nina")],
                settings: settings)
        else { Issue.record("the passkey did not step up"); return }
        let granted = try await world.redeemWithACR(code)
        #expect(granted.subject == "user-nina" && granted.amr == ["pwd", "hwk", "user"] && granted.acr == "urn:acme:loa:3")
        let records = try await SQLiteAuditTrail(database: world.tenants)
            .records(matching: AuditQuery(chain: "acme", resourceType: .user)).items
        #expect(records.contains { $0.note?.action == "passkey.step-up" && $0.resource.id == "nina" })

        // A clone: the same counter again is refused, and recorded against the owner.
        let (cloned, identify) = try await world.start(settings: settings)
        let replayedCounter = try await world.step(
            cloned.id, "submit", ["credential": try Self.assertion(authenticator, identify, subject: "user-nina")],
            settings: settings)
        guard case .refused = replayedCounter else { Issue.record("a counter that did not move was accepted"); return }
        let afterClone = try await SQLiteAuditTrail(database: world.tenants)
            .records(matching: AuditQuery(chain: "acme", resourceType: .user)).items
        #expect(
            afterClone.contains {
                $0.note?.action == "passkey.refused" && $0.note?.summary?.contains("went back") == true
                    && $0.resource.id == "nina"
            })

        // Without the class asked, the password alone signs in.
        let (plain, _) = try await world.start(settings: settings)
        _ = try await world.step(plain.id, "submit", ["identifier": "nina"], settings: settings)
        guard case .authorizationCode = try await world.step(plain.id, "submit", ["password": "correct horse battery"], settings: settings)
        else { Issue.record("a passkey was asked without the class"); return }
    }
}
