/// A tenant's own authentication context classes (issue 63 §1: what each `acr_values` value
/// demands): which `amr` a sign-in needs for one, which class a sign-in meets, and the rules a
/// class follows.
extension JourneySettings {
    /// How many classes a tenant names at most.
    public static let maxStepUpClasses = 10
    /// The factors a class may demand, with the `amr` value (RFC 8176) a sign-in that used one
    /// carries.
    /// A passkey demands `user`: every passkey sign-in carries it (its key proof is `hwk` or
    /// `swk`, by whether the key may be synced), and no other factor does.
    public static let stepUpFactors = Dictionary(
        uniqueKeysWithValues: [(Factor.password, "pwd"), (.totp, "otp"), (.smsCode, "sms"), (.passkey, "user")])

    /// The `amr` values `acr` demands: a class of the tenant's, or a built-in one (the TOTP class
    /// demands `otp`, the passkey class `user`, the password class nothing); nil for a value
    /// nobody defined.
    public func demandedAMR(for acr: String) -> [String]? {
        if let factors = stepUp[acr] { return factors.compactMap { Self.stepUpFactors[$0] } }
        if acr == BackchannelRules.totpACR { return ["otp"] }
        if acr == BackchannelRules.passkeyACR { return ["user"] }
        if acr == BackchannelRules.passwordACR { return [] }
        return nil
    }

    /// The class a sign-in with `amr` carries when the request asked `asked` (`acr_values`, in
    /// order): the first asked class it meets, else the built-in class of its `amr`.
    public func acr(amr: [String], asked: [String]) -> String {
        Self.acr(amr: amr, asked: asked, demands: demands(of: asked))
    }

    /// What each asked class anybody defined demands (a journey keeps it from its start).
    public func demands(of asked: [String]) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for value in asked { found[value] = demandedAMR(for: value) }
        return found
    }

    /// ``acr(amr:asked:)`` with the demands already looked up.
    public static func acr(amr: [String], asked: [String], demands: [String: [String]]) -> String {
        for value in asked {
            if let demanded = demands[value], demanded.allSatisfy(amr.contains) { return value }
        }
        return AuthorizationServer.acr(of: amr)
    }

    /// Whether a session whose sign-in used `amr` may answer a request asking `asked`: it meets
    /// one of the asked classes anybody defined, or the request asks none.
    public func meets(amr: [String], asked: [String]) -> Bool {
        let known = asked.compactMap(demandedAMR(for:))
        return known.isEmpty || known.contains { $0.allSatisfy(amr.contains) }
    }

    /// Every class a request may ask: the built-in ones, then the tenant's, sorted.
    public var acrValuesSupported: [String] {
        BackchannelRules.supportedACRValues + stepUp.keys.sorted().filter { !BackchannelRules.supportedACRValues.contains($0) }
    }

    /// Why the classes are refused, each a problem that follows the field's name.
    var stepUpProblems: [String] {
        var found: [String] = []
        if stepUp.count > Self.maxStepUpClasses { found.append("names at most \(Self.maxStepUpClasses) classes") }
        for (value, factors) in stepUp.sorted(by: { $0.key < $1.key }) {
            let shown = String(value.prefix(64))
            if !(1...200).contains(value.unicodeScalars.count) || value.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
                found.append("class '\(shown)' must be 1-200 visible ASCII characters")
            } else if BackchannelRules.supportedACRValues.contains(value) {
                found.append("class '\(shown)' is built in")
            }
            if factors.isEmpty { found.append("class '\(shown)' must name at least one factor") }
            for factor in factors where Self.stepUpFactors[factor] == nil {
                found.append(
                    "class '\(shown)' names \(factor.rawValue): a class demands password, totp, sms-code or passkey")
            }
            for factor in factors where Self.stepUpFactors[factor] != nil && !self.factors.contains(factor)
                && factor != .totp
            {
                found.append("class '\(shown)' names \(factor.rawValue), which is not among journeys.factors")
            }
        }
        return found
    }
}
