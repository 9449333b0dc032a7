import Foundation
import Testing

@testable import GatewayCore
@testable import GatewaySQLite

/// A sign-in request approved with a passkey (issue 64), without HTTP: the options name the
/// user's passkeys, the assertion approves with the passkey class, and everything else a
/// passkey sign-in refuses is refused here too, leaving the request waiting.
@Suite("Backchannel approval: a passkey step-up")
struct BackchannelPasskeyTests {
    static let origin = "https://login.acme.example"
    static let party = RelyingParty(id: "login.acme.example", origins: [origin])

    struct World {
        let folder: TemporaryFolder
        let store: SQLiteAuthStore
        let clock = ManualClock(frozen: true)
        let auth: AuthorizationServer
        let ceremonies: PasskeyCeremonies

        init() async throws {
            folder = try TemporaryFolder()
            let tenants = try Fixtures.store(folder)
            _ = try await tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
            store = SQLiteAuthStore(tenants: tenants)
            let cache = MemoryCache(clock: clock.wall)
            auth = AuthorizationServer(
                store: store, cache: cache, hasher: PasswordHasher(logN: 10), memo: nil, clock: clock.wall)
            ceremonies = PasskeyCeremonies(store: store, cache: cache, clock: clock.wall)
            for name in ["nina", "omar"] {
                try await store.addUser(
                    LocalUser(
                        tenantID: "acme", username: name, subject: "user-\(name)",
                        passwordHash: try PasswordHasher(logN: 10).hash("correct horse battery")))
            }
        }

        /// Registers `authenticator` for `subject` through a whole ceremony.
        func register(_ authenticator: SoftwareAuthenticator, subject: String) async throws {
            let (token, options) = try await ceremonies.beginRegistration(
                party: BackchannelPasskeyTests.party, partyName: "Acme", tenantID: "acme", subject: subject,
                userName: subject, displayName: subject)
            let answer = try authenticator.registration(
                rpID: options.rp.id, challenge: Array(Base64URL.decode(options.challenge)!),
                origin: BackchannelPasskeyTests.origin)
            _ = try await ceremonies.finishRegistration(
                token: token, tenantID: "acme", answer: answer, party: BackchannelPasskeyTests.party, name: "Phone",
                trail: nil)
        }

        /// A waiting request for `subject` asking `acr`.
        func ask(_ acr: [String] = [BackchannelRules.passkeyACR], subject: String = "user-nina") async throws -> String {
            let now = clock.wall.now()
            let request = BackchannelRequest(
                id: UUID().uuidString.replacingOccurrences(of: "-", with: ""), tenantID: "acme", clientID: "tv",
                subject: subject, scopes: ["openid"], bindingMessage: nil, acrValues: acr, address: "192.0.2.9",
                requestedAt: now, expiresAt: now.addingTimeInterval(120), interval: 5, mode: .poll)
            return try await auth.backchannel.admit(request, holder: subject).id
        }

        func options(_ id: String, subject: String = "user-nina") async throws -> RequestOptionsJSON {
            try await auth.beginBackchannelPasskey(
                tenantID: "acme", subject: subject, id: id, ceremonies: ceremonies, party: BackchannelPasskeyTests.party
            ).options
        }

        /// The approval of request `id` by nina, with `credential` as the step-up.
        func approve(
            _ id: String, passkey credential: AuthenticationResponseJSON? = nil, password: String? = nil
        ) async throws -> BackchannelAnswer {
            try await auth.answerBackchannel(
                tenantID: "acme", subject: "user-nina", id: id, approve: true, authTime: clock.wall.now(),
                password: password,
                passkey: credential.map {
                    BackchannelPasskeyAnswer(credential: $0, ceremonies: ceremonies, party: BackchannelPasskeyTests.party)
                }
            ).answer
        }
    }

    /// What `authenticator` answers to `options` (its counter moved first, as a phone's does).
    static func assertion(
        _ authenticator: inout SoftwareAuthenticator, _ options: RequestOptionsJSON, origin: String = origin
    ) throws -> AuthenticationResponseJSON {
        authenticator.signCount += 1
        return try authenticator.assertion(
            rpID: options.rpId, challenge: Array(Base64URL.decode(options.challenge)!), origin: origin,
            userHandle: nil)
    }

    static func refusal(_ body: () async throws -> Any) async -> BackchannelError? {
        do {
            _ = try await body()
            return nil
        } catch let error as BackchannelError {
            return error
        } catch {
            return nil
        }
    }

    @Test("a request asking a passkey: nothing else approves it; the options name the user's passkeys; the assertion does")
    func approvedWithAPasskey() async throws {
        let world = try await World()
        var phone = SoftwareAuthenticator.es256()
        try await world.register(phone, subject: "user-nina")
        let id = try await world.ask()

        #expect(await Self.refusal { try await world.approve(id) } == .stepUpRequired("this request asks for one of the user's passkeys"))
        #expect(
            await Self.refusal { try await world.approve(id, password: "correct horse battery") }
                == .stepUpRequired("this request asks for one of the user's passkeys"))
        let options = try await world.options(id)
        #expect(options.rpId == "login.acme.example" && options.userVerification == "required")
        #expect(options.allowCredentials.map(\.id) == [Base64URL.encode(phone.credentialID)])
        let answer = try await world.approve(id, passkey: try Self.assertion(&phone, options))
        #expect(answer.approved && answer.acr == BackchannelRules.passkeyACR && answer.amr == ["hwk", "user"])
        #expect(try await world.auth.backchannel.answer(tenantID: "acme", id: id)?.approved == true)
        #expect(await Self.refusal { try await world.options(id) } == .alreadyAnswered)

        // A request asking the TOTP class is met by a passkey too; one asking nothing records no class.
        let totp = try await world.ask([BackchannelRules.totpACR])
        let met = try await world.approve(totp, passkey: try Self.assertion(&phone, try await world.options(totp)))
        #expect(met.acr == BackchannelRules.totpACR && met.amr == ["hwk", "user"])
        let plain = try await world.ask([])
        #expect(try await world.approve(plain, passkey: try Self.assertion(&phone, try await world.options(plain))).acr == nil)
    }

    @Test("refused, the request still waiting: no ceremony, another origin, a spent challenge, another user's passkey, a counter gone back")
    func refusals() async throws {
        let world = try await World()
        var phone = SoftwareAuthenticator.es256()
        try await world.register(phone, subject: "user-nina")
        var other = SoftwareAuthenticator.es256()
        other.credentialID = Array(repeating: 9, count: 16)
        try await world.register(other, subject: "user-omar")
        let id = try await world.ask()

        // An assertion with no ceremony begun for this request.
        let spare = try await world.options(try await world.ask())
        #expect(await Self.refusal { try await world.approve(id, passkey: try Self.assertion(&phone, spare)) } == .stepUpFailed)
        // Another origin; then the right answer to that (spent) challenge.
        let first = try await world.options(id)
        #expect(
            await Self.refusal {
                try await world.approve(id, passkey: try Self.assertion(&phone, first, origin: "https://evil.example"))
            } == .stepUpFailed)
        #expect(await Self.refusal { try await world.approve(id, passkey: try Self.assertion(&phone, first)) } == .stepUpFailed)
        // Something that is no credential at all (the handler's nil): refused, the ceremony spent.
        let malformed = try await world.options(id)
        #expect(
            await Self.refusal {
                try await world.auth.answerBackchannel(
                    tenantID: "acme", subject: "user-nina", id: id, approve: true, authTime: world.clock.wall.now(),
                    passkey: BackchannelPasskeyAnswer(credential: nil, ceremonies: world.ceremonies, party: Self.party))
            } == .stepUpFailed)
        #expect(await Self.refusal { try await world.approve(id, passkey: try Self.assertion(&phone, malformed)) } == .stepUpFailed)
        // Asking again replaces the ceremony: the first challenge no longer counts.
        let replaced = try await world.options(id)
        _ = try await world.options(id)
        #expect(await Self.refusal { try await world.approve(id, passkey: try Self.assertion(&phone, replaced)) } == .stepUpFailed)
        // Omar's passkey for Nina's request.
        let forOmar = try await world.options(id)
        #expect(await Self.refusal { try await world.approve(id, passkey: try Self.assertion(&other, forOmar)) } == .stepUpFailed)
        // A clone: the counter below the stored one.
        let cloned = try await world.options(id)
        var clone = phone
        clone.signCount = 0
        #expect(
            await Self.refusal { try await world.approve(id, passkey: try Self.assertion(&clone, cloned)) }
                == .passkeyCounterWentBack(stored: 1, received: 1))
        #expect(try await world.auth.backchannel.answer(tenantID: "acme", id: id) == nil)

        // Omar cannot ask for Nina's request; a user holding no passkey is told to step up otherwise.
        #expect(await Self.refusal { try await world.options(id, subject: "user-omar") } == .notFound)
        try await world.store.removePasskey(
            tenantID: "acme", subject: "user-omar", credentialID: other.credentialID, trail: nil)
        let omars = try await world.ask(subject: "user-omar")
        guard case .stepUpRequired = await Self.refusal({ try await world.options(omars, subject: "user-omar") }) else {
            Issue.record("a user without passkeys must be told to step up another way")
            return
        }
    }
}
