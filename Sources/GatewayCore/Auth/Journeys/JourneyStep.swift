/// A built-in step of a journey (issue 63): each is a type with its screen, chosen and shaped
/// by the tenant's ``JourneySettings`` (which identifiers, whether sign-up and recovery are
/// offered, whether a password is a factor). The journey engine decides which step comes
/// next; the step says what its screen asks.
public enum JourneyStep: String, Sendable, CaseIterable {
    case identify, password, totp, code, register, recover
    case newPassword = "new-password"
    case createPasskey = "create-passkey"
    case passkey

    /// An E.164 phone number: `+`, a country code, at most 15 digits in all.
    public static let phonePattern = #"^\+[1-9][0-9]{6,14}$"#
    /// A phone number as people write it, without the spaces, hyphens, brackets and dots.
    public static func phoneDigits(_ typed: some StringProtocol) -> String { String(typed.filter { !" -().".contains($0) }) }
    /// A one-time code of ``OneTimeCodes``' 6 digits.
    public static let codePattern = "^[0-9]{6}$"

    /// The step's screen for a tenant with `settings`.
    public func screen(_ settings: JourneySettings) -> JourneyScreen {
        let recover: [JourneyScreen.Action] = settings.recovery.isEmpty ? [] : [.forgotPassword]
        switch self {
        case .identify:
            // With passkeys, the identifier field also offers the person's passkeys (autofill):
            // a passkey answered signs in without the identifier.
            let passkey = settings.factors.contains(.passkey) ? [Self.passkeyField(required: false)] : []
            return JourneyScreen(
                name: .identify, fields: [Self.identifierField(settings.identifiers)] + passkey,
                actions: [.submit] + (settings.signUp ? [.signUp] : []) + recover)
        case .password:
            return JourneyScreen(
                name: .password,
                fields: [Self.field("password", .password, autocomplete: "current-password")],
                actions: [.submit] + recover + [.back])
        case .totp:
            return JourneyScreen(
                name: .totp,
                fields: [Self.field("code", .code, autocomplete: "one-time-code", pattern: Self.codePattern)],
                actions: [.submit, .back])
        case .code:
            return JourneyScreen(
                name: .code,
                fields: [Self.field("code", .code, autocomplete: "one-time-code", pattern: Self.codePattern)],
                actions: [.submit, .resend, .back])
        case .register:
            // One field per identifier people sign in with (every one required), a name, and a
            // password when a password is a factor.
            var fields = settings.identifiers.map { identifier in
                switch identifier {
                case .username: Self.field("username", .text, autocomplete: "username")
                case .email: Self.field("email", .email, autocomplete: "email")
                case .phone: Self.field("phone", .tel, autocomplete: "tel", pattern: Self.phonePattern)
                }
            }
            fields.append(Self.field("name", .text, required: false, autocomplete: "name"))
            if settings.factors.contains(.password) {
                fields.append(Self.field("password", .password, autocomplete: "new-password"))
            }
            return JourneyScreen(name: .register, fields: fields, actions: [.submit, .back])
        case .recover:
            // The address or number a code goes to: the tenant's recovery channels.
            let channels = settings.recovery.compactMap { JourneySettings.Identifier(rawValue: $0.rawValue) }
            return JourneyScreen(
                name: .recover, fields: [Self.identifierField(channels.isEmpty ? [.email] : channels)],
                actions: [.submit, .back])
        case .newPassword:
            return JourneyScreen(
                name: .newPassword, fields: [Self.field("password", .password, autocomplete: "new-password")],
                actions: [.submit])
        case .passkey:
            return JourneyScreen(
                name: .passkey, fields: [Self.passkeyField(required: true)], actions: [.submit, .back],
                messages: [JourneyScreen.Message(key: "journey.passkey.confirm")])
        case .createPasskey:
            return JourneyScreen(
                name: .createPasskey, fields: [Self.passkeyField(required: true)], actions: [.submit, .skip],
                messages: [JourneyScreen.Message(key: "journey.passkey.explain")])
        }
    }

    /// A passkey field, `credential`: its options come from the journey's ceremony.
    static func passkeyField(required: Bool) -> JourneyScreen.Field {
        field("credential", .passkey, required: required, autocomplete: required ? nil : "webauthn")
    }

    /// The identify screen's one field: typed for the only identifier, or plain text that
    /// takes any of them (an e-mail, a phone number or a username, told apart by the engine).
    static func identifierField(_ identifiers: [JourneySettings.Identifier]) -> JourneyScreen.Field {
        // One label per set of identifiers (7 texts), whatever order the tenant lists them in.
        let named = JourneySettings.Identifier.allCases.filter(identifiers.contains)
        let label = "journey.field.identifier." + named.map(\.rawValue).joined(separator: "-")
        switch identifiers {
        case [.email]: return field("identifier", .email, label: label, autocomplete: "username email")
        case [.phone]:
            return field("identifier", .tel, label: label, autocomplete: "username tel", pattern: phonePattern)
        default: return field("identifier", .text, label: label, autocomplete: "username")
        }
    }

    private static func field(
        _ name: String, _ type: JourneyScreen.FieldType, label: String? = nil, required: Bool = true,
        autocomplete: String? = nil, pattern: String? = nil
    ) -> JourneyScreen.Field {
        JourneyScreen.Field(
            name: name, type: type, labelKey: label ?? "journey.field.\(name)", required: required,
            autocomplete: autocomplete, pattern: pattern)
    }
}
