import Foundation
import Testing

@testable import GatewayCore
@testable import GatewaySQLite

/// Phone numbers in the journeys (issue 63 §2, §4-5), without HTTP: signing in with a number
/// and an SMS code, a number no account holds answered alike and sent nothing, SMS only to the
/// tenant's allowed countries within their hourly budget, and signing up with an e-mail
/// address and a phone number each verified by a code.
@Suite("Journey engine: phone numbers and SMS codes")
struct JourneyPhoneTests {
    typealias World = JourneyEngineTests.World
    static let settings = JourneySettings(
        signUp: true, identifiers: [.username, .email, .phone], verify: [.email, .phone],
        factors: [.password, .smsCode, .totp])

    static func ready(perCountryPerHour: Int = 1_000) async throws -> World {
        let world = try await World()
        try await world.tenants.update(id: "acme", actor: "test") {
            $0.courier.sms = SMSSettings(
                provider: .twilio, url: "https://api.twilio.example", accountSid: "AC1",
                authToken: SecretValue("token-of-sixteen-chars"), from: "+15005550006", allowedCountries: ["81", "44"],
                perCountryPerHour: perCountryPerHour)
        }
        for (username, phone) in [("nina", "+819012345678"), ("omar", "+447700900123")] {
            _ = try await world.store.writeUser(tenantID: "acme", username: username, trail: nil) {
                var user = $0
                user.phone = phone
                return user
            }
        }
        return world
    }

    static func identify(_ world: World, _ number: String, settings: JourneySettings = settings) async throws
        -> (Journey, JourneyOutcome)
    {
        let (journey, _) = try await world.start(settings: settings)
        return (journey, try await world.step(journey.id, "submit", ["identifier": number], settings: settings))
    }

    static func messages(_ world: World) async throws -> [CourierMessage] {
        try await JourneyEmailSignUpTests.mails(world)
    }

    static func screen(_ outcome: JourneyOutcome) -> JourneyScreen? {
        switch outcome {
        case .screen(let screen), .refused(let screen), .throttled(let screen, _): screen
        case .authorizationCode, .signedIn: nil
        }
    }

    @Test("a number as people write it: an SMS code, a wrong one refused, the right one signs its holder in")
    func signInWithAnSMSCode() async throws {
        let world = try await Self.ready()
        let (journey, outcome) = try await Self.identify(world, " +81 90-1234-5678 ")
        guard case .screen(let codeScreen) = outcome else { Issue.record("no code screen: \(outcome)"); return }
        #expect(codeScreen.name == .code && codeScreen.actions == [.submit, .resend, .back])
        #expect(codeScreen.messages == [.init(key: "journey.code.sent", values: ["address": "+81…5678"])])
        let sent = try await Self.messages(world)
        #expect(sent.map { [$0.channel.rawValue, $0.to, $0.purpose] } == [["sms", "+819012345678", "sign-in"]])
        let code = try #require(sent.first.flatMap(JourneyEmailSignUpTests.code(in:)))
        #expect(sent.first?.text.hasPrefix("\(code) is your Acme code.") == true && sent.first?.subject == "")

        let wrong = code == "000000" ? "111111" : "000000"
        let refused = try await world.step(journey.id, "submit", ["code": wrong], settings: Self.settings)
        #expect(Self.screen(refused)?.messages.contains(.init(field: "code", key: "journey.error.code")) == true)
        guard case .authorizationCode(let issued) = try await world.step(
            journey.id, "submit", ["code": code], settings: Self.settings)
        else { Issue.record("the right code did not sign in"); return }
        let grant = try #require(try await world.auth.codes.redeem(issued, tenantID: "acme", producing: "f").granted)
        #expect(grant.subject == "user-nina")
    }

    @Test("a number no account holds: the same screens, nothing sent, every code refused alike")
    func unknownNumbersAnswerAlike() async throws {
        let world = try await Self.ready()
        let (known, knownOutcome) = try await Self.identify(world, "+819012345678")
        let (unknown, unknownOutcome) = try await Self.identify(world, "+819099999999")
        #expect(Self.screen(knownOutcome)?.name == .code && Self.screen(unknownOutcome)?.name == .code)
        #expect(Self.screen(knownOutcome)?.actions == Self.screen(unknownOutcome)?.actions)
        #expect(try await Self.messages(world).map(\.to) == ["+819012345678"], "nothing to a number no account holds")
        // Resend too: nothing goes out.
        #expect(Self.screen(try await world.step(unknown.id, "resend", settings: Self.settings))?.name == .code)
        #expect(try await Self.messages(world).isEmpty)
        // The unknown number's messages were written as a real sending's are (so its answer takes
        // as long), but expired: each ended at its claim, never handed to the provider.
        let ended = try await world.outbox.messages(tenantID: "acme", state: .expired, before: nil, limit: 10)
        #expect(ended.map(\.purpose) == ["sign-in.unheld", "sign-in.unheld"], "\(ended)")
        #expect(ended.allSatisfy { $0.attempts == 0 && $0.lastError == "not sent: nobody holds the recipient" })
        var refusals: [[JourneyScreen.Message]] = []
        for journey in [known, unknown] {
            let outcome = try await world.step(journey.id, "submit", ["code": "123456"], settings: Self.settings)
            guard case .refused(let screen) = outcome else { Issue.record("a code was taken: \(outcome)"); return }
            refusals.append(screen.messages.filter { $0.field == "code" })
        }
        #expect(refusals[0] == refusals[1] && refusals[0] == [.init(field: "code", key: "journey.error.code")])
    }

    @Test("SMS only to allowed countries, within the hourly budget per country; a bad number said beside its field")
    func countriesAndTheirBudget() async throws {
        let world = try await Self.ready(perCountryPerHour: 2)
        // +1 is not allowed: refused beside the field, nothing queued, known or not.
        let (_, american) = try await Self.identify(world, "+12025550123")
        #expect(Self.screen(american)?.messages == [.init(field: "identifier", key: "journey.error.country")])
        if case .refused = american {} else { Issue.record("not refused: \(american)") }
        let (_, local) = try await Self.identify(world, "+81 (0)90")
        #expect(Self.screen(local)?.messages == [.init(field: "identifier", key: "journey.error.phone")])
        // Two to +81 this hour (one of them to a number no account holds); the third waits.
        for number in ["+819012345678", "+819011112222"] {
            #expect(Self.screen(try await Self.identify(world, number).1)?.name == .code)
        }
        let (_, third) = try await Self.identify(world, "+819033334444")
        guard case .throttled(let screen, let retryAfter) = third else { Issue.record("not throttled: \(third)"); return }
        #expect(screen.messages.first?.key == "journey.error.codes" && retryAfter <= .seconds(3_600))
        // Another country has its own budget.
        #expect(Self.screen(try await Self.identify(world, "+447700900123").1)?.name == .code)
        #expect(try await Self.messages(world).map(\.to).sorted() == ["+447700900123", "+819012345678"])
        // An hour later +81 has its budget back.
        world.clock.advance(.seconds(3_601))
        #expect(Self.screen(try await Self.identify(world, "+819033334444").1)?.name == .code)
    }

    @Test("the sixth code for a number in an hour is refused")
    func sixthCodeRefused() async throws {
        let world = try await Self.ready()
        let (journey, _) = try await Self.identify(world, "+819012345678")
        var names: [String] = []
        for _ in 0..<5 {
            let outcome = try await world.step(journey.id, "resend", settings: Self.settings)
            if case .throttled = outcome { names.append("throttled") } else { names.append("sent") }
        }
        #expect(names == ["sent", "sent", "sent", "sent", "throttled"])
        #expect(try await Self.messages(world).count == 5)
    }

    @Test("an account with an authenticator app: the SMS code, then the app's code")
    func smsThenTOTP() async throws {
        let world = try await Self.ready()
        let (journey, _) = try await Self.identify(world, "+447700900123")
        let code = try #require(try await Self.messages(world).first.flatMap(JourneyEmailSignUpTests.code(in:)))
        let next = try await world.step(journey.id, "submit", ["code": code], settings: Self.settings)
        #expect(Self.screen(next)?.name == .totp)
    }

    @Test("sign-up with an e-mail address and a phone number: a code to each in turn, then the account holds both")
    func signUpVerifiesBoth() async throws {
        let world = try await Self.ready()
        let (journey, register) = try await world.start(kind: .signUp, settings: Self.settings)
        #expect(register.fields.map(\.name) == ["username", "email", "phone", "name", "password"])
        let bad = try await world.step(
            journey.id, "submit",
            ["username": "yuki", "email": "yuki@acme.example", "phone": "0901234", "password": "a long enough one"],
            settings: Self.settings)
        #expect(Self.screen(bad)?.messages == [.init(field: "phone", key: "journey.error.phone")])
        let first = try await world.step(
            journey.id, "submit",
            ["username": "yuki", "email": "Yuki@Acme.example", "phone": "+81 80 5555 0000", "password": "a long enough one"],
            settings: Self.settings)
        #expect(Self.screen(first)?.messages == [.init(key: "journey.code.sent", values: ["address": "y…@acme.example"])])
        let mail = try #require(try await Self.messages(world).first)
        #expect(mail.channel == .email && mail.purpose == "verify-email")
        let second = try await world.step(
            journey.id, "submit", ["code": try #require(JourneyEmailSignUpTests.code(in: mail))], settings: Self.settings)
        #expect(Self.screen(second)?.messages == [.init(key: "journey.code.sent", values: ["address": "+81…0000"])])
        #expect(try await world.store.user(tenantID: "acme", username: "yuki") == nil, "no account before both codes")
        let sms = try #require(try await Self.messages(world).first)
        #expect(sms.channel == .sms && sms.to == "+818055550000" && sms.purpose == "verify-phone")
        guard case .authorizationCode = try await world.step(
            journey.id, "submit", ["code": try #require(JourneyEmailSignUpTests.code(in: sms))], settings: Self.settings)
        else { Issue.record("both codes did not sign up"); return }
        let user = try #require(try await world.store.user(tenantID: "acme", username: "yuki"))
        #expect(user.email == "yuki@acme.example" && user.phone == "+818055550000")
    }

    @Test("a phone number an account holds gets a note at sign-up, no code; sign-up without SMS codes stays password")
    func knownNumberAtSignUp() async throws {
        let world = try await Self.ready()
        let settings = JourneySettings(signUp: true, identifiers: [.phone], verify: [.phone])
        let (journey, _) = try await world.start(kind: .signUp, settings: settings)
        let outcome = try await world.step(
            journey.id, "submit", ["phone": "+819012345678", "password": "a long enough one"], settings: settings)
        #expect(Self.screen(outcome)?.name == .code)
        let note = try #require(try await Self.messages(world).first)
        #expect(note.channel == .sms && JourneyEmailSignUpTests.code(in: note) == nil)
        #expect(note.text.contains("already have one"))
        // Without `sms-code` among the factors, a number signs in with the password.
        let (_, password) = try await Self.identify(world, "+819012345678", settings: settings)
        #expect(Self.screen(password)?.name == .password)
    }
}
