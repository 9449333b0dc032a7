import Foundation
import Testing

@testable import GatewayCore

/// Each built-in step's screen follows the tenant's journey settings (issue 63 §2): one
/// definition a native app draws and the hosted page renders.
@Suite("Journey steps and their screens")
struct JourneyStepTests {
    @Test("identify: a username by default; sign-up and recovery offered only when the tenant allows them")
    func identify() {
        let plain = JourneyStep.identify.screen(JourneySettings())
        #expect(plain.name == .identify && plain.actions == [.submit] && plain.titleKey == "journey.screen.identify")
        #expect(plain.fields.map(\.name) == ["identifier"] && plain.fields[0].type == .text)
        #expect(plain.fields[0].labelKey == "journey.field.identifier.username" && plain.fields[0].autocomplete == "username")

        let open = JourneyStep.identify.screen(
            JourneySettings(signUp: true, identifiers: [.email, .phone], recovery: [.email], factors: [.password]))
        #expect(open.actions == [.submit, .signUp, .forgotPassword])
        #expect(open.fields[0].type == .text && open.fields[0].labelKey == "journey.field.identifier.email-phone")

        // One identifier: the field is typed for it, a phone with the E.164 pattern.
        let phone = JourneyStep.identify.screen(JourneySettings(identifiers: [.phone], factors: [.smsCode]))
        #expect(phone.fields[0].type == .tel && phone.fields[0].pattern == JourneyStep.phonePattern)
        #expect(JourneyStep.identify.screen(JourneySettings(identifiers: [.email])).fields[0].type == .email)
        let e164 = try! NSRegularExpression(pattern: JourneyStep.phonePattern)
        for (number, valid) in [("+819012345678", true), ("+15550100", true), ("0901234567", false), ("+0123456789", false)] {
            let found = e164.firstMatch(in: number, range: NSRange(number.startIndex..., in: number)) != nil
            #expect(found == valid, "\(number)")
        }
    }

    @Test("register asks every identifier, a name, and a new password only when a password is a factor")
    func register() {
        let screen = JourneyStep.register.screen(
            JourneySettings(signUp: true, identifiers: [.email, .phone], factors: [.password, .smsCode]))
        #expect(screen.fields.map(\.name) == ["email", "phone", "name", "password"])
        #expect(screen.fields.map(\.type) == [.email, .tel, .text, .password])
        #expect(screen.fields.map(\.required) == [true, true, false, true])
        #expect(screen.fields.last?.autocomplete == "new-password")
        let codesOnly = JourneyStep.register.screen(
            JourneySettings(signUp: true, identifiers: [.phone], factors: [.smsCode]))
        #expect(codesOnly.fields.map(\.name) == ["phone", "name"])
    }

    @Test("password, code and new-password screens; values shown again, never a secret")
    func secretsAreNeverShownAgain() {
        let code = JourneyStep.code.screen(JourneySettings())
        #expect(code.fields[0].type == .code && code.fields[0].autocomplete == "one-time-code")
        #expect(code.actions == [.submit, .resend, .back] && code.fields[0].pattern == JourneyStep.codePattern)
        #expect(JourneyStep.password.screen(JourneySettings(recovery: [])).actions == [.submit, .back])
        #expect(JourneyStep.newPassword.screen(JourneySettings()).name == .newPassword)

        let register = JourneyStep.register.screen(JourneySettings(signUp: true, identifiers: [.username, .email]))
        let again = register.filled(["username": "nina", "email": "nina@example.com", "password": "hunter2hunter2"])
            .with([JourneyScreen.Message(field: "email", key: "journey.error.taken")])
        #expect(again.fields.first { $0.name == "email" }?.value == "nina@example.com")
        #expect(again.fields.first { $0.name == "password" }?.value == nil)
        #expect(again.messages == [JourneyScreen.Message(field: "email", key: "journey.error.taken")])
        let typed = code.filled(["code": "123456"])
        #expect(typed.fields[0].value == nil)
        // Every screen name is a step's.
        #expect(Set(JourneyStep.allCases.map { $0.screen(JourneySettings()).name }) == Set(JourneyScreen.Name.allCases))
    }
}
