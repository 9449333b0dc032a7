/// How people of the tenant get in on their own (issue 63): which identifiers sign in, whether
/// they may sign up, which identifiers must be verified, how an account is recovered, which
/// factors are allowed, and how many codes an identifier may ask for. Built-in steps with
/// settings, not a programming language. The defaults are today's behaviour: a username and a
/// password, no sign-up.
public struct JourneySettings: Sendable, Equatable, Codable {
    /// What a person types to say who they are.
    public enum Identifier: String, Sendable, Codable, CaseIterable {
        case username, email, phone
    }

    /// Where a code goes: an e-mail address or a phone (E.164).
    public enum Channel: String, Sendable, Codable, CaseIterable {
        case email, phone
    }

    /// What proves it is them.
    public enum Factor: String, Sendable, Codable, CaseIterable {
        case password
        case emailCode = "email-code"
        case smsCode = "sms-code"
        case totp
        /// A passkey (WebAuthn, issue 64): a first factor, and a step-up.
        case passkey
    }

    /// People may create an account themselves.
    public var signUp: Bool
    /// The identifiers that sign in, in the order the screen offers them (at least one).
    public var identifiers: [Identifier]
    /// The identifiers that must be verified by a code before the account is used.
    public var verify: [Channel]
    /// The channels a forgotten password is recovered through (none: no recovery).
    public var recovery: [Channel]
    /// The factors a sign-in may use (at least one).
    public var factors: [Factor]
    /// Codes one identifier may ask for in an hour (1-20; the next is refused).
    public var codesPerIdentifierPerHour: Int
    /// Sign-ups one client address may make in an hour (1-10,000; raise it for people behind a
    /// carrier's shared address).
    public var signUpsPerAddressPerHour: Int
    /// The tenant's own authentication context classes (step-up): an `acr_values` value and the
    /// factors a sign-in must have used for it (`password`, `totp`, `sms-code`). A sign-in that
    /// used them carries that `acr`; a browser session that did not is asked again. At most
    /// ``maxStepUpClasses``; the built-in classes (``BackchannelRules/supportedACRValues``)
    /// stay.
    public var stepUp: [String: [Factor]]

    public static let codesPerIdentifierPerHourRange: ClosedRange<Int> = 1...20
    public static let signUpsPerAddressPerHourRange: ClosedRange<Int> = 1...10_000

    public init(
        signUp: Bool = false, identifiers: [Identifier] = [.username], verify: [Channel] = [], recovery: [Channel] = [],
        factors: [Factor] = [.password], codesPerIdentifierPerHour: Int = 5, signUpsPerAddressPerHour: Int = 10,
        stepUp: [String: [Factor]] = [:]
    ) {
        self.stepUp = stepUp
        self.signUpsPerAddressPerHour = signUpsPerAddressPerHour
        self.signUp = signUp
        self.identifiers = identifiers
        self.verify = verify
        self.recovery = recovery
        self.factors = factors
        self.codesPerIdentifierPerHour = codesPerIdentifierPerHour
    }

    /// What does not fit together, each as the field and a problem that follows its name.
    public var problems: [TenantValidationError] {
        var found: [TenantValidationError] = []
        func refuse(_ field: TenantField, _ problem: String) { found.append(TenantValidationError(field: field, problem: problem)) }
        if identifiers.isEmpty { refuse(.journeysIdentifiers, "must name at least one of username, email, phone") }
        if let repeated = identifiers.firstRepeated() { refuse(.journeysIdentifiers, "names \(repeated.rawValue) twice") }
        if factors.isEmpty { refuse(.journeysFactors, "must name at least one of password, email-code, sms-code, totp, passkey") }
        if let repeated = factors.firstRepeated() { refuse(.journeysFactors, "names \(repeated.rawValue) twice") }
        if let repeated = verify.firstRepeated() { refuse(.journeysVerify, "names \(repeated.rawValue) twice") }
        if let repeated = recovery.firstRepeated() { refuse(.journeysRecovery, "names \(repeated.rawValue) twice") }
        // A channel is only verified, recovered through or sent codes when people have one.
        let held = Set(identifiers.compactMap { Channel(rawValue: $0.rawValue) })
        for channel in verify where !held.contains(channel) {
            refuse(.journeysVerify, "names \(channel.rawValue), which is not among journeys.identifiers")
        }
        for channel in recovery where !held.contains(channel) {
            refuse(.journeysRecovery, "names \(channel.rawValue), which is not among journeys.identifiers")
        }
        if factors.contains(.emailCode), !held.contains(.email) {
            refuse(.journeysFactors, "names email-code, but email is not among journeys.identifiers")
        }
        if factors.contains(.smsCode), !held.contains(.phone) {
            refuse(.journeysFactors, "names sms-code, but phone is not among journeys.identifiers")
        }
        if factors == [.totp] { refuse(.journeysFactors, "must name a first factor besides totp") }
        if !Self.codesPerIdentifierPerHourRange.contains(codesPerIdentifierPerHour) {
            refuse(
                .journeysCodesPerIdentifierPerHour,
                "must be between 1 and 20, got \(codesPerIdentifierPerHour)")
        }
        if !Self.signUpsPerAddressPerHourRange.contains(signUpsPerAddressPerHour) {
            refuse(
                .journeysSignUpsPerAddressPerHour,
                "must be between 1 and 10000, got \(signUpsPerAddressPerHour)")
        }
        for problem in stepUpProblems { refuse(.journeysStepUp, problem) }
        return found
    }
}

extension JourneySettings {
    /// Missing members take their defaults, so a document may name only what it changes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = JourneySettings()
        self.init(
            signUp: try container.decodeIfPresent(Bool.self, forKey: .signUp) ?? defaults.signUp,
            identifiers: try container.decodeIfPresent([Identifier].self, forKey: .identifiers) ?? defaults.identifiers,
            verify: try container.decodeIfPresent([Channel].self, forKey: .verify) ?? defaults.verify,
            recovery: try container.decodeIfPresent([Channel].self, forKey: .recovery) ?? defaults.recovery,
            factors: try container.decodeIfPresent([Factor].self, forKey: .factors) ?? defaults.factors,
            codesPerIdentifierPerHour: try container.decodeIfPresent(Int.self, forKey: .codesPerIdentifierPerHour)
                ?? defaults.codesPerIdentifierPerHour,
            signUpsPerAddressPerHour: try container.decodeIfPresent(Int.self, forKey: .signUpsPerAddressPerHour)
                ?? defaults.signUpsPerAddressPerHour,
            stepUp: try container.decodeIfPresent([String: [Factor]].self, forKey: .stepUp) ?? defaults.stepUp)
    }
}
