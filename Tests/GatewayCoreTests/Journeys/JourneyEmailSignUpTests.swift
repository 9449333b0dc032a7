import Foundation
import Testing

@testable import GatewayCore
@testable import GatewaySQLite

/// Sign-up with an e-mail address verified by a code (issue 63 §2, §4-5), without HTTP: the
/// code goes through the courier outbox (sealed), the right one creates the account with its
/// address and signs the person in; a known address gets a note and no code, and the screens
/// answer alike; codes are bounded per address.
@Suite("Journey engine: e-mail sign-up")
struct JourneyEmailSignUpTests {
    typealias World = JourneyEngineTests.World
    static let settings = JourneySettings(signUp: true, identifiers: [.email], verify: [.email], codesPerIdentifierPerHour: 3)

    /// The messages the courier would send now, opened (each claimed once).
    static func mails(_ world: World) async throws -> [CourierMessage] {
        try await world.outbox.claim(limit: 50, lease: .seconds(60), now: world.clock.wall.now()).map(\.message)
    }

    static func code(in message: CourierMessage) -> String? {
        message.text.firstMatch(of: /[0-9]{6}/).map { String($0.output) }
    }

    func register(_ world: World, email: String) async throws -> (Journey, JourneyOutcome) {
        let (journey, screen) = try await world.start(kind: .signUp, settings: Self.settings)
        #expect(screen.name == .register && screen.fields.map(\.name) == ["email", "name", "password"])
        let outcome = try await world.step(
            journey.id, "submit", ["email": email, "password": "a long enough one"], settings: Self.settings)
        return (journey, outcome)
    }

    @Test("a code sent to the address, a wrong one refused, the right one creates the account and signs in")
    func signUpWithAVerifiedAddress() async throws {
        let world = try await World()
        let (journey, outcome) = try await register(world, email: " Ken@Acme.example ")
        guard case .screen(let codeScreen) = outcome else {
            Issue.record("expected the code screen, got \(outcome)")
            return
        }
        #expect(codeScreen.name == .code && codeScreen.actions == [.submit, .resend, .back])
        #expect(codeScreen.messages == [.init(key: "journey.code.sent", values: ["address": "k…@acme.example"])])
        let mails = try await Self.mails(world)
        #expect(mails.count == 1 && mails.first?.to == "ken@acme.example" && mails.first?.purpose == "verify-email")
        let code = try #require(mails.first.flatMap(Self.code(in:)))
        #expect(mails.first?.subject == "Your Acme code: \(code)")

        let wrong = code == "000000" ? "111111" : "000000"
        guard case .refused(let refused) = try await world.step(journey.id, "submit", ["code": wrong], settings: Self.settings)
        else {
            Issue.record("a wrong code was taken")
            return
        }
        #expect(refused.messages.contains(.init(field: "code", key: "journey.error.code")))
        #expect(try await world.store.user(tenantID: "acme", username: "ken@acme.example") == nil, "no account before the code")

        guard case .authorizationCode = try await world.step(journey.id, "submit", ["code": code], settings: Self.settings) else {
            Issue.record("the right code did not sign in")
            return
        }
        let user = try #require(try await world.store.user(tenantID: "acme", username: "ken@acme.example"))
        #expect(user.email == "ken@acme.example")
        #expect(try await world.engine.journey(id: journey.id, tenantID: "acme") == nil, "used once")
    }

    @Test("a known address gets a note and no code; both screens and refusals are alike")
    func knownAndUnknownAnswerAlike() async throws {
        let world = try await World()
        try await world.store.addUser(
            LocalUser(
                tenantID: "acme", username: "kim", email: "kim@acme.example",
                passwordHash: try PasswordHasher(logN: 10).hash("correct horse battery")))
        let (known, knownOutcome) = try await register(world, email: "kim@acme.example")
        let (unknown, unknownOutcome) = try await register(world, email: "kit@acme.example")
        guard case .screen(let knownScreen) = knownOutcome, case .screen(let unknownScreen) = unknownOutcome else {
            Issue.record("expected code screens: \(knownOutcome), \(unknownOutcome)")
            return
        }
        #expect(knownScreen == unknownScreen, "the masked addresses are equal (k…@acme.example): nothing tells them apart")
        let mails = try await Self.mails(world).sorted { $0.to < $1.to }
        #expect(mails.map(\.to) == ["kim@acme.example", "kit@acme.example"])
        #expect(Self.code(in: mails[0]) == nil && mails[0].subject == "About your Acme account")
        #expect(Self.code(in: mails[1]) != nil)
        // Any code for the known address is refused exactly as a wrong one for the unknown.
        let a = try await world.step(known.id, "submit", ["code": "123456"], settings: Self.settings)
        let b = try await world.step(unknown.id, "submit", ["code": "123456"] , settings: Self.settings)
        #expect(a == b || Self.code(in: mails[1]) == "123456")
    }

    @Test("codes per address are bounded: a resend past the tenant's number is throttled")
    func codesAreBounded() async throws {
        let world = try await World()
        let (journey, _) = try await register(world, email: "lea@acme.example")
        for _ in 0..<2 {
            guard case .screen = try await world.step(journey.id, "resend", settings: Self.settings) else {
                Issue.record("a resend within the bound was refused")
                return
            }
        }
        guard case .throttled(let screen, let retryAfter) = try await world.step(journey.id, "resend", settings: Self.settings)
        else {
            Issue.record("the fourth code in an hour went out")
            return
        }
        #expect(retryAfter > .zero && screen.messages.contains { $0.key == "journey.error.codes" })
        let mails = try await Self.mails(world)
        #expect(mails.count == 3)
        // Only the last code works: each resend voids the one before.
        let codes = mails.sorted { $0.createdAt < $1.createdAt }.compactMap(Self.code(in:))
        if codes[0] != codes[2] {
            guard case .refused = try await world.step(journey.id, "submit", ["code": codes[0]], settings: Self.settings) else {
                Issue.record("a replaced code was taken")
                return
            }
        }
        guard case .authorizationCode = try await world.step(journey.id, "submit", ["code": codes[2]], settings: Self.settings)
        else {
            Issue.record("the last code did not sign in")
            return
        }
    }
}
