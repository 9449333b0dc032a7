import Foundation
import Testing

@testable import GatewayCore

/// A tenant's journey settings (issue 63 §1): what fits together, and what a stored document
/// that names only some members means.
@Suite("Journey settings")
struct JourneySettingsTests {
    @Test("the defaults are today's behaviour, and they hold")
    func defaults() throws {
        let settings = JourneySettings()
        #expect(settings.identifiers == [.username] && settings.factors == [.password] && !settings.signUp)
        #expect(settings.problems.isEmpty)
        // A document naming only some members takes the defaults for the rest.
        let partial = try JSONDecoder().decode(JourneySettings.self, from: Data(#"{"signUp": true}"#.utf8))
        #expect(partial == JourneySettings(signUp: true))
        #expect(try JSONDecoder().decode(JourneySettings.self, from: Data("{}".utf8)) == settings)
    }

    @Test("settings that do not fit together are refused, each naming its field")
    func whatDoesNotFit() {
        let cases: [(JourneySettings, TenantField, String)] = [
            (JourneySettings(identifiers: []), .journeysIdentifiers, "at least one"),
            (JourneySettings(identifiers: [.email, .email]), .journeysIdentifiers, "twice"),
            (JourneySettings(verify: [.phone]), .journeysVerify, "not among journeys.identifiers"),
            (JourneySettings(identifiers: [.email], recovery: [.phone]), .journeysRecovery, "not among"),
            (JourneySettings(factors: [.emailCode]), .journeysFactors, "email is not among"),
            (JourneySettings(identifiers: [.email], factors: [.smsCode]), .journeysFactors, "phone is not among"),
            (JourneySettings(factors: [.totp]), .journeysFactors, "besides totp"),
            (JourneySettings(factors: []), .journeysFactors, "at least one"),
            (JourneySettings(codesPerIdentifierPerHour: 21), .journeysCodesPerIdentifierPerHour, "between 1 and 20"),
        ]
        for (settings, field, words) in cases {
            let problems = settings.problems
            #expect(problems.contains { $0.field == field && $0.problem.contains(words) }, "\(settings): \(problems)")
        }
        let phoneFirst = JourneySettings(
            signUp: true, identifiers: [.phone, .email], verify: [.phone, .email], recovery: [.phone],
            factors: [.smsCode, .password, .totp])
        #expect(phoneFirst.problems.isEmpty)
        // The tenant validator reports them with the rest.
        var tenant = Tenant(id: "acme", displayName: "Acme")
        tenant.journeys.verify = [.email]
        #expect(TenantValidator.problems(tenant).map(\.field) == [.journeysVerify])
    }
}
