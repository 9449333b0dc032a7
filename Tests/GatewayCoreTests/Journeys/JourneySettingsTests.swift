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

    @Test("a tenant's own step-up classes: what each demands, which one a sign-in meets, what is refused")
    func stepUpClasses() throws {
        let settings = try JSONDecoder().decode(
            JourneySettings.self,
            from: Data(#"{"stepUp": {"urn:acme:loa:1": ["password"], "urn:acme:loa:2": ["password", "totp"]}}"#.utf8))
        #expect(settings.problems.isEmpty)
        #expect(settings.demandedAMR(for: "urn:acme:loa:2") == ["pwd", "otp"])
        #expect(settings.demandedAMR(for: BackchannelRules.totpACR) == ["otp"])
        #expect(settings.demandedAMR(for: "urn:other") == nil)
        let asked = ["urn:acme:loa:2", "urn:acme:loa:1"]
        // The first asked class the sign-in meets; none met: the built-in class of its amr.
        #expect(settings.acr(amr: ["pwd", "otp"], asked: asked) == "urn:acme:loa:2")
        #expect(settings.acr(amr: ["pwd"], asked: asked) == "urn:acme:loa:1")
        #expect(settings.acr(amr: ["sms"], asked: asked) == BackchannelRules.passwordACR)
        #expect(settings.acr(amr: ["pwd", "otp"], asked: ["urn:other"]) == BackchannelRules.totpACR)
        // A session meets a request that asks a class it met, or none anybody defined.
        #expect(settings.meets(amr: ["pwd"], asked: asked) && settings.meets(amr: [], asked: ["urn:other"]))
        #expect(!settings.meets(amr: ["pwd"], asked: ["urn:acme:loa:2"]))
        #expect(!settings.meets(amr: ["pwd"], asked: [BackchannelRules.totpACR]))
        // The built-in passkey class: met by a passkey's user verification, and what it carries.
        #expect(settings.demandedAMR(for: BackchannelRules.passkeyACR) == ["user"])
        #expect(settings.meets(amr: ["swk", "user"], asked: [BackchannelRules.passkeyACR]))
        #expect(!settings.meets(amr: ["pwd", "otp"], asked: [BackchannelRules.passkeyACR]))
        #expect(settings.acr(amr: ["hwk", "user"], asked: []) == BackchannelRules.passkeyACR)
        #expect(
            settings.acrValuesSupported
                == BackchannelRules.supportedACRValues + ["urn:acme:loa:1", "urn:acme:loa:2"])

        let refused: [([String: [JourneySettings.Factor]], String)] = [
            (["urn:acme:x": []], "at least one factor"),
            (["urn:acme:x": [.emailCode]], "a class demands password, totp, sms-code or passkey"),
            (["urn:acme:x": [.smsCode]], "not among journeys.factors"),
            (["urn:acme:x": [.passkey]], "passkey, which is not among journeys.factors"),
            ([BackchannelRules.totpACR: [.totp]], "is built in"),
            (["with space": [.password]], "visible ASCII"),
            (Dictionary(uniqueKeysWithValues: (0...10).map { ("urn:c:\($0)", [JourneySettings.Factor.password]) }), "at most 10"),
        ]
        for (classes, words) in refused {
            let problems = JourneySettings(stepUp: classes).problems
            #expect(problems.contains { $0.field == .journeysStepUp && $0.problem.contains(words) }, "\(problems)")
        }
    }
}
