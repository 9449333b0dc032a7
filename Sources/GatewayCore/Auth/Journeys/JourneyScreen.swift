import Foundation

/// A screen of a journey (issue 63 §2): what a native app draws from its fields and the hosted
/// sign-in page renders as a form, from this one definition. Labels and messages are text keys
/// (`journey.field.password`), resolved in the asked language where the screen is rendered, so
/// a tenant's localization overrides them like every other text. An app that meets a screen
/// ``Name`` it does not know opens the journey's hosted URL instead: screens can be added
/// without breaking deployed apps.
public struct JourneyScreen: Sendable, Equatable {
    /// Which screen this is; apps switch on it.
    public enum Name: String, Sendable, CaseIterable {
        /// Who are you: the tenant's identifiers.
        case identify
        /// The password of the identified account.
        case password
        /// The current code of the account's authenticator app (its TOTP second factor).
        case totp
        /// A one-time code sent by e-mail or SMS.
        case code
        /// A new account's fields.
        case register
        /// A new password, at the end of a recovery.
        case newPassword = "new-password"
        /// Where to send a recovery code: the tenant's recovery channels.
        case recover
        /// Create a passkey (issue 64): offered after a sign-in or a sign-up (skippable), or
        /// the way a passwordless sign-up ends.
        case createPasskey = "create-passkey"
        /// The account's passkey, after a first factor, when the asked `acr_values` demand it
        /// (step-up).
        case passkey
    }

    /// How a field is typed: the input a native app shows, the `type` of the page's input.
    public enum FieldType: String, Sendable, CaseIterable {
        case text, email, tel, password, code, checkbox
        /// A passkey: the app hands the field's ``Field/options`` to the platform and sends
        /// back the credential as `PublicKeyCredential.toJSON()` gives it.
        case passkey
    }

    /// A `passkey` field's WebAuthn options, as the platforms take them.
    public enum PasskeyOptions: Sendable, Equatable {
        /// `PublicKeyCredentialCreationOptionsJSON`: create a passkey.
        case create(CreationOptionsJSON)
        /// `PublicKeyCredentialRequestOptionsJSON`: use one.
        case get(RequestOptionsJSON)

        /// The options as the JSON the platforms take (what the app's screen and the hosted
        /// page's field carry alike).
        public func json() throws -> Data {
            switch self {
            case .create(let creation): try JSONEncoder().encode(creation)
            case .get(let request): try JSONEncoder().encode(request)
            }
        }
    }

    /// One input; `name` is what the app sends back in `values`.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var type: FieldType
        /// The text key of its label.
        public var labelKey: String
        public var required: Bool
        /// The autofill hint (HTML `autocomplete`, iOS `textContentType`, Android autofill hints).
        public var autocomplete: String?
        /// What a value must match (an ECMAScript and ICU regular expression), when anything.
        public var pattern: String?
        /// The value to show again (never a password or a code).
        public var value: String?
        /// A `passkey` field's options.
        public var options: PasskeyOptions? = nil
    }

    /// What the person may do on the screen; `name` is the `action` the app sends.
    public enum Action: String, Sendable, CaseIterable {
        case submit
        case signUp = "sign-up"
        case forgotPassword = "forgot-password"
        case resend
        case back
        /// Go on without what the screen offers (creating a passkey).
        case skip
    }

    /// Something to tell the person: about one field (`field`), or the whole screen (nil).
    public struct Message: Sendable, Equatable {
        public var field: String?
        /// The text key (`journey.error.credentials`).
        public var key: String
        /// Values for the text's `{name}` placeholders (`seconds`), never a secret.
        public var values: [String: String]

        public init(field: String? = nil, key: String, values: [String: String] = [:]) {
            self.field = field
            self.key = key
            self.values = values
        }
    }

    public var name: Name
    public var fields: [Field]
    public var actions: [Action]
    public var messages: [Message]

    /// The text key of the screen's title.
    public var titleKey: String { "journey.screen.\(name.rawValue)" }

    public init(name: Name, fields: [Field], actions: [Action], messages: [Message] = []) {
        self.name = name
        self.fields = fields
        self.actions = actions
        self.messages = messages
    }

    /// This screen with `messages` to show.
    public func with(_ messages: [Message]) -> JourneyScreen {
        var copy = self
        copy.messages = messages
        return copy
    }

    /// This screen with `values` shown again in its fields (passwords and codes never are).
    public func filled(_ values: [String: String]) -> JourneyScreen {
        var copy = self
        for index in copy.fields.indices where ![.password, .code].contains(copy.fields[index].type) {
            copy.fields[index].value = values[copy.fields[index].name]
        }
        return copy
    }
}
