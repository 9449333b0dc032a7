import Foundation
import Testing

@testable import GatewayCore
@testable import GatewaySQLite

/// The journey engine (issue 63 §2) without HTTP: a first-party client signs a person in with
/// a username and a password through screens; the journey lives in the shared cache, is used
/// once and expires; what has no native screen yet answers `hosted`.
@Suite("Journey engine")
struct JourneyEngineTests {
    static let verifier = String(repeating: "v", count: 43)

    struct World {
        let folder: TemporaryFolder
        let engine: JourneyEngine
        let auth: AuthorizationServer
        let store: SQLiteAuthStore
        let clock: ManualClock

        init() async throws {
            folder = try TemporaryFolder()
            let tenants = try Fixtures.store(folder)
            _ = try await tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
            store = SQLiteAuthStore(tenants: tenants)
            clock = ManualClock(frozen: true)
            let cache = MemoryCache(clock: clock.wall)
            auth = AuthorizationServer(
                store: store, cache: cache, hasher: PasswordHasher(logN: 10), memo: nil, clock: clock.wall)
            engine = JourneyEngine(auth: auth, cache: cache, clock: clock.wall)
            var app = OAuthClient(tenantID: "acme", clientID: "host-app", redirectURIs: ["com.acme.app:/cb"])
            app.firstParty = true
            app.defaultScopes = OAuthClient.newDefaultScopes(firstParty: true)
            try await store.addClient(app, secretHash: nil)
            try await store.addClient(
                OAuthClient(tenantID: "acme", clientID: "partner", redirectURIs: ["https://partner.example/cb"]),
                secretHash: nil)
            try await store.addUser(
                LocalUser(
                    tenantID: "acme", username: "nina", subject: "user-nina",
                    passwordHash: try PasswordHasher(logN: 10).hash("correct horse battery")))
        }

        func start(
            clientID: String = "host-app", kind: Journey.Kind = .signIn, hint: String? = nil,
            settings: JourneySettings = JourneySettings()
        ) async throws -> (journey: Journey, screen: JourneyScreen) {
            try await engine.start(
                kind, tenantID: "acme", settings: settings, clientID: clientID,
                codeChallenge: PKCE.challenge(for: JourneyEngineTests.verifier), codeChallengeMethod: "S256",
                scope: "openid", nonce: "n-1", loginHint: hint)
        }

        func step(_ id: String, _ action: String, _ values: [String: String] = [:]) async throws -> JourneyOutcome {
            try await engine.advance(
                id: id, tenantID: "acme", settings: JourneySettings(), action: action, values: values, address: "192.0.2.1")
        }
    }

    @Test("identify, a wrong password, the right one: a code for the token endpoint, once")
    func signInWithAPassword() async throws {
        let world = try await World()
        let (journey, first) = try await world.start(hint: "nina")
        #expect(first.name == .identify && first.fields.first?.value == "nina")
        #expect(journey.id.count == 43 && journey.scope.contains("openid"))

        guard case .refused(let empty) = try await world.step(journey.id, "submit", ["identifier": " "]) else {
            Issue.record("an empty identifier was not refused"); return
        }
        #expect(empty.messages.map(\.field) == ["identifier"])
        guard case .screen(let password) = try await world.step(journey.id, "submit", ["identifier": "nina"]) else {
            Issue.record("no password screen"); return
        }
        #expect(password.name == .password)
        guard case .refused(let wrong) = try await world.step(journey.id, "submit", ["password": "wrong guess"]) else {
            Issue.record("a wrong password was not refused"); return
        }
        #expect(wrong.messages.map(\.key) == ["journey.error.credentials"])
        // An action the screen does not offer is refused, not run.
        guard case .refused(let odd) = try await world.step(journey.id, "sign-up") else { Issue.record("sign-up ran"); return }
        #expect(odd.messages.map(\.key) == ["journey.error.action"])

        guard case .authorizationCode(let code) = try await world.step(journey.id, "submit", ["password": "correct horse battery"])
        else { Issue.record("no code"); return }
        let redeemed = try await world.auth.codes.redeem(code, tenantID: "acme", producing: "family-1")
        let grant = try #require(redeemed.granted)
        #expect(grant.subject == "user-nina" && grant.clientID == "host-app" && grant.nonce == "n-1")
        #expect(grant.codeChallenge == PKCE.challenge(for: Self.verifier) && grant.redirectURI == nil)
        // The journey ended with its code.
        await #expect(throws: JourneyError.notFound) { try await world.step(journey.id, "submit", ["password": "x"]) }
    }

    @Test("only first-party clients start one; PKCE is required; sign-up and recovery go to the hosted page")
    func whoMayStartWhat() async throws {
        let world = try await World()
        await #expect(throws: OAuthError.self) { try await world.start(clientID: "partner") }
        await #expect(throws: OAuthError.self) { try await world.start(clientID: "nobody") }
        await #expect(throws: OAuthError.self) {
            try await world.engine.start(
                .signIn, tenantID: "acme", settings: JourneySettings(), clientID: "host-app", codeChallenge: nil,
                codeChallengeMethod: nil, scope: "openid", nonce: nil, loginHint: nil)
        }
        await #expect(throws: JourneyError.kindNotOffered(.signUp)) { try await world.start(kind: .signUp) }
        // A tenant offering recovery: the action is on the screen, and answers hosted.
        let settings = JourneySettings(identifiers: [.username, .email], recovery: [.email])
        let (journey, screen) = try await world.start(settings: settings)
        #expect(screen.actions.contains(.forgotPassword))
        let outcome = try await world.engine.advance(
            id: journey.id, tenantID: "acme", settings: settings, action: "forgot-password", values: [:], address: nil)
        #expect(outcome == .hosted)
    }

    @Test("a journey expires after ten minutes and belongs to its tenant")
    func expiryAndTenancy() async throws {
        let world = try await World()
        let (journey, _) = try await world.start()
        await #expect(throws: JourneyError.notFound) {
            try await world.engine.advance(
                id: journey.id, tenantID: "beta", settings: JourneySettings(), action: "submit",
                values: ["identifier": "nina"], address: nil)
        }
        world.clock.advance(.seconds(601))
        await #expect(throws: JourneyError.notFound) { try await world.step(journey.id, "submit", ["identifier": "nina"]) }
    }
}
