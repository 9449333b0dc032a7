import Foundation
import Testing

@testable import GatewayCore
@testable import GatewaySQLite

/// Recovering a forgotten password (issue 63 §1-2), without HTTP: a code to the address or
/// number, the authenticator app's code when the account has one, a new password; every other
/// session of the user ends; an address nobody holds is answered alike and sent nothing.
@Suite("Journey engine: recovery")
struct JourneyRecoveryTests {
    typealias World = JourneyEngineTests.World
    static let settings = JourneySettings(
        identifiers: [.username, .email, .phone], recovery: [.email, .phone], factors: [.password, .totp])

    static func ready() async throws -> World {
        let world = try await JourneyPhoneTests.ready()
        _ = try await world.store.writeUser(tenantID: "acme", username: "nina", trail: nil) {
            var user = $0
            user.email = "nina@acme.example"
            return user
        }
        return world
    }

    static func screen(_ outcome: JourneyOutcome) -> JourneyScreen? { JourneyPhoneTests.screen(outcome) }

    /// nina holds a session (a refresh family with a live access token) from before.
    static func holdSession(_ world: World) async throws -> String {
        let now = world.clock.wall.now()
        let family = RefreshFamily(
            familyID: "f-old", tenantID: "acme", clientID: "host-app", subject: "user-nina", scope: "openid",
            nonce: nil, dpopJKT: nil, createdAt: now, absoluteExpiry: now.addingTimeInterval(86_400), sessionID: "s-old")
        _ = try await world.store.createFamily(
            family, tokenHash: "h-old", idleExpiry: now.addingTimeInterval(3_600),
            accessToken: IssuedAccessToken(jti: "at-old", expiresAt: now.addingTimeInterval(600)))
        return "h-old"
    }

    @Test("forgot the password: a code by e-mail, a new password, every other session ended, signed in")
    func recoverByEmail() async throws {
        let world = try await Self.ready()
        let oldSession = try await Self.holdSession(world)
        let (journey, identify) = try await world.start(settings: Self.settings)
        #expect(identify.actions == [.submit, .forgotPassword])
        let recover = try await world.step(
            journey.id, "forgot-password", ["identifier": "Nina@Acme.example"], settings: Self.settings)
        #expect(Self.screen(recover)?.name == .recover && Self.screen(recover)?.fields.first?.value == "Nina@Acme.example")
        #expect(Self.screen(recover)?.actions == [.submit, .back])
        let sent = try await world.step(journey.id, "submit", ["identifier": "Nina@Acme.example"], settings: Self.settings)
        #expect(Self.screen(sent)?.messages == [.init(key: "journey.code.sent", values: ["address": "n…@acme.example"])])
        let mail = try #require(try await JourneyPhoneTests.messages(world).first)
        #expect(mail.to == "nina@acme.example" && mail.purpose == "recovery" && mail.channel == .email)
        let code = try #require(JourneyEmailSignUpTests.code(in: mail))

        // A sign-in code is no recovery code, and a wrong one is refused.
        let wrong = try await world.step(journey.id, "submit", ["code": code == "000000" ? "111111" : "000000"], settings: Self.settings)
        #expect(Self.screen(wrong)?.messages.contains(.init(field: "code", key: "journey.error.code")) == true)
        let newPassword = try await world.step(journey.id, "submit", ["code": code], settings: Self.settings)
        #expect(Self.screen(newPassword)?.name == .newPassword)
        let short = try await world.step(journey.id, "submit", ["password": "short"], settings: Self.settings)
        #expect(Self.screen(short)?.messages.first?.key == "journey.error.new-password")
        guard case .authorizationCode(let issued) = try await world.step(
            journey.id, "submit", ["password": "a brand new password"], settings: Self.settings)
        else { Issue.record("the new password did not sign in"); return }

        let user = try #require(try await world.store.user(tenantID: "acme", username: "nina"))
        #expect(PasswordHasher(logN: 10).verify("a brand new password", against: user.passwordHash))
        #expect(try await world.store.family(ofTokenHash: oldSession)?.revoked == true, "the old session ended")
        #expect(try await world.auth.revocations.isRevoked(tenantID: "acme", jti: "at-old"))
        let grant = try #require(try await world.auth.codes.redeem(issued, tenantID: "acme", producing: "f").granted)
        #expect(grant.subject == "user-nina")
        let records = try await SQLiteAuditTrail(database: world.tenants)
            .records(matching: AuditQuery(chain: "acme", resourceType: .user)).items
        let record = try #require(records.first { $0.note?.action == "recovery" })
        #expect(record.actor.subject == "user:user-nina" && record.actor.auth?.method == "recovery")
        #expect(!String(describing: record).contains("a brand new password") && !String(describing: record).contains("scrypt"))
    }

    @Test("an address no account holds: the same screens, nothing sent, every code refused alike")
    func unknownAddressAnsweredAlike() async throws {
        let world = try await Self.ready()
        var screens: [[String]] = []
        for address in ["nina@acme.example", "nobody@acme.example"] {
            let (journey, _) = try await world.start(kind: .recovery, settings: Self.settings)
            let sent = try #require(Self.screen(try await world.step(
                journey.id, "submit", ["identifier": address], settings: Self.settings)))
            let refused = try #require(Self.screen(try await world.step(
                journey.id, "submit", ["code": "123456"], settings: Self.settings)))
            screens.append([sent.name.rawValue, "\(sent.actions)", refused.name.rawValue, "\(refused.messages.filter { $0.field != nil })"])
        }
        #expect(screens[0] == screens[1])
        #expect(try await JourneyPhoneTests.messages(world).map(\.to) == ["nina@acme.example"])
        // A username is no recovery channel; recovery off: not offered.
        let (journey, _) = try await world.start(kind: .recovery, settings: Self.settings)
        let username = try await world.step(journey.id, "submit", ["identifier": "nina"], settings: Self.settings)
        #expect(Self.screen(username)?.messages == [.init(field: "identifier", key: "journey.error.identifier")])
        await #expect(throws: JourneyError.kindNotOffered(.recovery)) {
            try await world.start(kind: .recovery, settings: JourneySettings())
        }
        #expect(try await world.start(settings: JourneySettings()).screen.actions == [.submit])
    }

    @Test("an account with an authenticator app: the SMS code, then the app's code, then the new password")
    func recoveryKeepsTheSecondFactor() async throws {
        let world = try await Self.ready()
        let (journey, _) = try await world.start(kind: .recovery, settings: Self.settings)
        _ = try await world.step(journey.id, "submit", ["identifier": "+44 7700 900123"], settings: Self.settings)
        let sms = try #require(try await JourneyPhoneTests.messages(world).first)
        #expect(sms.channel == .sms && sms.purpose == "recovery")
        let totpScreen = try await world.step(
            journey.id, "submit", ["code": try #require(JourneyEmailSignUpTests.code(in: sms))], settings: Self.settings)
        #expect(Self.screen(totpScreen)?.name == .totp)
        let totp = try #require(TOTP(base32: World.seed))
        let next = try await world.step(
            journey.id, "submit", ["code": totp.code(step: TOTP.step(at: world.clock.wall.now()))], settings: Self.settings)
        #expect(Self.screen(next)?.name == .newPassword)
        guard case .authorizationCode = try await world.step(
            journey.id, "submit", ["password": "another new password"], settings: Self.settings)
        else { Issue.record("not signed in"); return }
        let omar = try #require(try await world.store.user(tenantID: "acme", username: "omar"))
        #expect(PasswordHasher(logN: 10).verify("another new password", against: omar.passwordHash))
    }
}
