import Foundation
import RedisClient
import Testing

@testable import GatewayCore
@testable import GatewaySQLite

/// The journey engine (issue 63 §2) without HTTP: a first-party client signs a person in with
/// a username and a password (and the authenticator app's code) through screens; the journey
/// lives in the shared cache, is used once and expires; screens offer only what the engine runs.
@Suite("Journey engine")
struct JourneyEngineTests {
    static let verifier = String(repeating: "v", count: 43)

    struct World {
        let folder: TemporaryFolder
        let tenants: SQLiteTenantStore
        let engine: JourneyEngine
        let auth: AuthorizationServer
        let store: SQLiteAuthStore
        let clock: ManualClock
        /// The courier's outbox (the engine sends e-mail codes through it).
        let outbox: SQLiteCourierOutbox

        init() async throws {
            folder = try TemporaryFolder()
            tenants = try Fixtures.store(folder)
            _ = try await tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
            store = SQLiteAuthStore(tenants: tenants)
            clock = ManualClock(frozen: true)
            let cache = MemoryCache(clock: clock.wall)
            auth = AuthorizationServer(
                store: store, cache: cache, hasher: PasswordHasher(logN: 10), memo: nil, clock: clock.wall)
            outbox = SQLiteCourierOutbox(database: tenants)
            engine = JourneyEngine(
                auth: auth, cache: cache, clock: clock.wall,
                courier: JourneyCourier(
                    codes: OneTimeCodes(cache: cache, sealer: Fixtures.sealer), outbox: outbox, cache: cache,
                    sealer: Fixtures.sealer, clock: clock.wall, tenantName: { _ in "Acme" },
                    courierSettings: { [tenants] in try await tenants.tenant(id: $0)?.courier }))
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
            try await store.addUser(
                LocalUser(
                    tenantID: "acme", username: "omar", subject: "user-omar",
                    passwordHash: try PasswordHasher(logN: 10).hash("correct horse battery"),
                    totpSecret: SecretValue(World.seed)))
        }

        static let seed = "JBSWY3DPEHPK3PXP"

        func start(
            clientID: String = "host-app", kind: Journey.Kind = .signIn, hint: String? = nil,
            settings: JourneySettings = JourneySettings()
        ) async throws -> (journey: Journey, screen: JourneyScreen) {
            try await engine.start(
                JourneyStart(
                    kind: kind, clientID: clientID, codeChallenge: PKCE.challenge(for: JourneyEngineTests.verifier),
                    codeChallengeMethod: "S256", scope: "openid", nonce: "n-1", loginHint: hint),
                tenantID: "acme", settings: settings)
        }

        func step(
            _ id: String, _ action: String, _ values: [String: String] = [:], onHostedPage: Bool = false,
            settings: JourneySettings = JourneySettings()
        ) async throws -> JourneyOutcome {
            try await engine.advance(
                id: id, tenantID: "acme", settings: settings, action: action, values: values,
                address: "192.0.2.1", onHostedPage: onHostedPage)
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

    @Test("only first-party clients with PKCE start one, to a registered redirect URI; sign-up only where the tenant runs it")
    func whoMayStartWhat() async throws {
        let world = try await World()
        await #expect(throws: OAuthError.self) { try await world.start(clientID: "partner") }
        await #expect(throws: OAuthError.self) { try await world.start(clientID: "nobody") }
        await #expect(throws: OAuthError.self) {
            try await world.engine.start(
                JourneyStart(kind: .signIn, clientID: "host-app", codeChallenge: nil, codeChallengeMethod: nil),
                tenantID: "acme", settings: JourneySettings())
        }
        await #expect(throws: OAuthError.self) {
            try await world.engine.start(
                JourneyStart(
                    kind: .signIn, clientID: "host-app", codeChallenge: PKCE.challenge(for: Self.verifier),
                    codeChallengeMethod: "S256", redirectURI: "https://evil.example/cb"),
                tenantID: "acme", settings: JourneySettings())
        }
        await #expect(throws: JourneyError.kindNotOffered(.signUp)) { try await world.start(kind: .signUp) }
        // A tenant offering sign-up and recovery: the screens offer only what the engine runs.
        let settings = JourneySettings(signUp: true, identifiers: [.username, .email], recovery: [.email])
        let (journey, screen) = try await world.start(settings: settings)
        // (Sign-up would take the address unverified: not offered.)
        #expect(screen.actions == [.submit, .forgotPassword] && journey.redirectURI == "com.acme.app:/cb")
        let outcome = try await world.engine.advance(
            id: journey.id, tenantID: "acme", settings: settings, action: "sign-up", values: [:], address: nil)
        guard case .refused(let same) = outcome else { Issue.record("sign-up ran: \(outcome)"); return }
        #expect(same.messages.map(\.key) == ["journey.error.action"])
    }

    @Test("an account with an authenticator app: password, then its code; wrong codes end the journey")
    func secondFactor() async throws {
        let world = try await World()
        let totp = try #require(TOTP(base32: World.seed))
        let (journey, _) = try await world.start()
        _ = try await world.step(journey.id, "submit", ["identifier": "omar"])
        guard case .screen(let code) = try await world.step(journey.id, "submit", ["password": "correct horse battery"])
        else { Issue.record("no code screen"); return }
        #expect(code.name == .totp && code.fields.map(\.name) == ["code"] && code.fields[0].type == .code)
        guard case .refused(let wrong) = try await world.step(journey.id, "submit", ["code": "000000"]) else {
            Issue.record("a wrong code was not refused"); return
        }
        #expect(wrong.messages == [JourneyScreen.Message(field: "code", key: "journey.error.totp")])
        let right = totp.code(step: TOTP.step(at: world.clock.wall.now()))
        guard case .authorizationCode(let issued) = try await world.step(journey.id, "submit", ["code": right], onHostedPage: true)
        else { Issue.record("no authorization code"); return }
        let grant = try #require(try await world.auth.codes.redeem(issued, tenantID: "acme", producing: "f").granted)
        // Finished on the hosted page: the code is bound to the journey's redirect URI.
        #expect(grant.subject == "user-omar" && grant.redirectURI == "com.acme.app:/cb")

        // Five wrong codes end the sign-in and the journey with it.
        let (again, _) = try await world.start()
        _ = try await world.step(again.id, "submit", ["identifier": "omar"])
        _ = try await world.step(again.id, "submit", ["password": "correct horse battery"])
        var ended = false
        for _ in 0..<6 where !ended {
            do { _ = try await world.step(again.id, "submit", ["code": "000000"]) } catch JourneyError.notFound { ended = true }
        }
        #expect(ended)
        #expect(try await world.engine.journey(id: again.id, tenantID: "acme") == nil)
    }

    @Test("sign-up with a username: checked values beside their fields, a taken name, then an account signed in and audited")
    func signUp() async throws {
        let world = try await World()
        let settings = JourneySettings(signUp: true)
        let (journey, register) = try await world.start(kind: .signUp, settings: settings)
        #expect(register.name == .register && register.fields.map(\.name) == ["username", "name", "password"])
        func step(_ action: String, _ values: [String: String]) async throws -> JourneyOutcome {
            try await world.engine.advance(
                id: journey.id, tenantID: "acme", settings: settings, action: action, values: values, address: "192.0.2.9")
        }
        guard case .refused(let bad) = try await step("submit", ["username": "two words", "password": "short"]) else {
            Issue.record("bad values were taken"); return
        }
        #expect(bad.messages.map(\.field) == ["username", "password"])
        #expect(bad.fields.first { $0.name == "username" }?.value == "two words" && bad.fields.last?.value == nil)
        guard case .refused(let taken) = try await step("submit", ["username": "nina", "password": "a long enough one"])
        else { Issue.record("a taken username was accepted"); return }
        #expect(taken.messages == [JourneyScreen.Message(field: "username", key: "journey.error.taken")])

        guard case .authorizationCode(let code) = try await step(
            "submit", ["username": "zoe", "name": "Zoë", "password": "a long enough one"])
        else { Issue.record("no code"); return }
        let user = try #require(try await world.store.user(tenantID: "acme", username: "zoe"))
        #expect(user.name == "Zoë" && user.email == nil && user.passwordHash != "a long enough one")
        let grant = try #require(try await world.auth.codes.redeem(code, tenantID: "acme", producing: "f").granted)
        #expect(grant.subject == user.subject)
        let records = try await SQLiteAuditTrail(database: world.tenants)
            .records(matching: AuditQuery(chain: "acme", resourceType: .user)).items
        let record = try #require(records.first { $0.resource.id == "zoe" })
        #expect(record.actor.subject == "user:\(user.subject)" && record.actor.auth?.method == "sign-up")
        #expect(record.note?.action == "sign-up" && record.actor.address == "192.0.2.9")
        #expect(!String(describing: record).contains("a long enough one"))
    }

    @Test("sign-up runs only where nothing needs verifying; the sign-ups of an address are bounded")
    func signUpBounds() async throws {
        let world = try await World()
        // An e-mail address taken unverified: not offered, not startable.
        let email = JourneySettings(signUp: true, identifiers: [.username, .email])
        #expect(!world.engine.runsSignUp(email) && !world.engine.runsSignUp(JourneySettings()))
        await #expect(throws: JourneyError.kindNotOffered(.signUp)) { try await world.start(kind: .signUp, settings: email) }
        #expect(try await world.start(settings: email).screen.actions == [.submit])
        // From the identify screen: sign-up takes the typed name along.
        let settings = JourneySettings(signUp: true)
        let (journey, identify) = try await world.start(settings: settings)
        #expect(identify.actions == [.submit, .signUp])
        guard case .screen(let register) = try await world.engine.advance(
            id: journey.id, tenantID: "acme", settings: settings, action: "sign-up", values: ["identifier": "yuki"],
            address: nil)
        else { Issue.record("no register screen"); return }
        #expect(register.name == .register && register.fields.first?.value == "yuki")

        // The address bound is the tenant's (3 here; 10 by default).
        var bounded = settings
        bounded.signUpsPerAddressPerHour = 3
        var outcomes: [String] = []
        for index in 0...bounded.signUpsPerAddressPerHour {
            let (next, _) = try await world.start(kind: .signUp, settings: bounded)
            let outcome = try await world.engine.advance(
                id: next.id, tenantID: "acme", settings: bounded, action: "submit",
                values: ["username": "bulk-\(index)", "password": "a long enough one"], address: "198.51.100.7")
            switch outcome {
            case .authorizationCode: outcomes.append("code")
            case .throttled(let screen, _): outcomes.append(screen.messages.first?.key ?? "?")
            default: outcomes.append("\(outcome)")
            }
        }
        #expect(outcomes.filter { $0 == "code" }.count == bounded.signUpsPerAddressPerHour)
        #expect(outcomes.last == "journey.error.sign-ups")
        #expect(try await world.store.user(tenantID: "acme", username: "bulk-\(bounded.signUpsPerAddressPerHour)") == nil)
    }

    @Test("an e-mail address signs in the one user holding it; one held by nobody or by two fails alike")
    func signInByEmail() async throws {
        let world = try await World()
        var nina = try #require(try await world.store.user(tenantID: "acme", username: "nina"))
        nina.email = "Nina@Example.com"
        try await world.store.updateUser(nina)
        let settings = JourneySettings(identifiers: [.username, .email])
        func signIn(_ identifier: String) async throws -> JourneyOutcome {
            let (journey, _) = try await world.start(settings: settings)
            for (action, values) in [("submit", ["identifier": identifier])] {
                _ = try await world.engine.advance(
                    id: journey.id, tenantID: "acme", settings: settings, action: action, values: values, address: nil)
            }
            return try await world.engine.advance(
                id: journey.id, tenantID: "acme", settings: settings, action: "submit",
                values: ["password": "correct horse battery"], address: nil)
        }
        guard case .authorizationCode = try await signIn("nina@example.com") else { Issue.record("e-mail refused"); return }
        guard case .refused = try await signIn("nobody@example.com") else { Issue.record("unknown accepted"); return }
        var omar = try #require(try await world.store.user(tenantID: "acme", username: "omar"))
        omar.email = "nina@example.com"
        try await world.store.updateUser(omar)
        guard case .refused = try await signIn("nina@example.com") else { Issue.record("a shared e-mail signed in"); return }
        // Where e-mail is no identifier, it is a username like any other.
        let (plain, _) = try await world.start()
        _ = try await world.step(plain.id, "submit", ["identifier": "Nina@Example.com"])
        guard case .refused = try await world.step(plain.id, "submit", ["password": "correct horse battery"]) else {
            Issue.record("an e-mail signed in where it is no identifier"); return
        }
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

    /// Two replicas' engines over one shared cache (two Redis clients on one namespace, or one
    /// in-process cache), and the Redis clients to close.
    static func replicas(_ kind: String, store: SQLiteAuthStore) throws -> ([JourneyEngine], [RedisClient]) {
        let namespace = "test:journeys:\(UUID().uuidString):"
        var clients: [RedisClient] = []
        let shared = MemoryCache()
        let engines = try (0..<2).map { _ -> JourneyEngine in
            var cache: any Cache = shared
            if kind == "redis", let url = ProcessInfo.processInfo.environment["REDIS_URL"] {
                let client = RedisClient(configuration: try RedisConfiguration(url: url))
                clients.append(client)
                cache = RedisCache(client: client, namespace: namespace)
            }
            let auth = AuthorizationServer(store: store, cache: cache, hasher: PasswordHasher(logN: 10), memo: nil)
            return JourneyEngine(auth: auth, cache: cache, clock: .system)
        }
        return (engines, clients)
    }

    @Test("started on one replica, continued on another; of concurrent last steps exactly one gets the code",
          arguments: AuthorizationCodeRedemptionTests.caches)
    func anyReplicaContinues(kind: String) async throws {
        let world = try await World()
        let (engines, clients) = try Self.replicas(kind, store: world.store)
        let (journey, _) = try await engines[0].start(
            JourneyStart(
                kind: .signIn, clientID: "host-app", codeChallenge: PKCE.challenge(for: Self.verifier),
                codeChallengeMethod: "S256"),
            tenantID: "acme", settings: JourneySettings())
        func step(_ replica: Int, _ action: String, _ values: [String: String]) async throws -> JourneyOutcome {
            try await engines[replica].advance(
                id: journey.id, tenantID: "acme", settings: JourneySettings(), action: action, values: values,
                address: nil)
        }
        guard case .screen(let password) = try await step(1, "submit", ["identifier": "nina"]) else {
            Issue.record("the second replica did not continue"); return
        }
        #expect(password.name == .password)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for replica in [0, 1, 0, 1] {
                group.addTask {
                    do {
                        if case .authorizationCode = try await step(replica, "submit", ["password": "correct horse battery"]) {
                            return "code"
                        }
                        return "screen"
                    } catch JourneyError.notFound { return "ended" } catch { return "\(error)" }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "code" }.count == 1 && outcomes.filter { $0 == "ended" }.count == 3, "\(outcomes)")
        for client in clients { await client.shutdown() }
    }
}
