/// The texts the courier sends, in English and Japanese (the languages of the hosted pages;
/// another language gets English), each under a key a tenant's localization overrides reword
/// per language (`gatewayctl l10n set --key courier.sms.code …`): `{code}` and `{tenant}` are
/// filled in. A tenant's English wording never reaches a Japanese message.
public enum CourierTemplates {
    /// One message's subject (e-mail only; empty for SMS) and text.
    public struct Mail: Sendable, Equatable {
        public var subject: String
        public var text: String
    }

    /// The prefix of the keys tenants may override.
    public static let keyPrefix = "courier."

    /// The built-in texts by language.
    public static let builtIn: [String: [String: String]] = ["en": english, "ja": japanese]

    static let english: [String: String] = [
        "courier.email.code.subject": "Your {tenant} code: {code}",
        "courier.email.code.text": """
            Your verification code is {code}. It is good for 10 minutes.

            If you did not ask for it, ignore this e-mail.
            """,
        "courier.email.sign-in.subject": "Your {tenant} sign-in code: {code}",
        "courier.email.sign-in.text": """
            Your sign-in code is {code}. It is good for 10 minutes.

            If you did not ask for it, ignore this e-mail.
            """,
        "courier.email.exists.subject": "About your {tenant} account",
        "courier.email.exists.text": """
            Someone tried to create an account with this address. You already have one:
            sign in, or reset your password if you forgot it.

            If it was not you, ignore this e-mail.
            """,
        "courier.sms.code": "{code} is your {tenant} code. It is good for 10 minutes. Never share it.",
        "courier.sms.exists": "Someone tried to create a {tenant} account with this number. You already have one: sign in.",
    ]

    static let japanese: [String: String] = [
        "courier.email.code.subject": "{tenant}の確認コード: {code}",
        "courier.email.code.text": """
            確認コードは {code} です。10分間有効です。

            このメールに心当たりがない場合は、破棄してください。
            """,
        "courier.email.sign-in.subject": "{tenant}のサインインコード: {code}",
        "courier.email.sign-in.text": """
            サインインコードは {code} です。10分間有効です。

            このメールに心当たりがない場合は、破棄してください。
            """,
        "courier.email.exists.subject": "{tenant}のアカウントについて",
        "courier.email.exists.text": """
            このメールアドレスでアカウントを作成しようとする操作がありました。すでにアカウントをお持ちです。
            サインインするか、パスワードをお忘れの場合は再設定してください。

            心当たりがない場合は、このメールを破棄してください。
            """,
        "courier.sms.code": "{code} は{tenant}の確認コードです（10分間有効）。他の人に教えないでください。",
        "courier.sms.exists": "この番号で{tenant}のアカウントを作成しようとする操作がありました。すでにアカウントをお持ちです。サインインしてください。",
    ]

    /// A code for `purpose`, good for 10 minutes: an e-mail, or an SMS short enough for one
    /// segment in English (the code first, so a lock screen shows it).
    /// - Parameter overrides: the tenant's wording by language (``keyPrefix`` keys).
    public static func code(
        _ code: String, purpose: OneTimeCodes.Purpose, tenantName: String, channel: CourierMessage.Channel,
        locale: String, overrides: [String: [String: String]] = [:]
    ) -> Mail {
        let texts = Texts(locale: locale, overrides: overrides, values: ["code": code, "tenant": tenantName])
        if channel == .sms { return Mail(subject: "", text: texts["courier.sms.code"]) }
        let kind = purpose == .signIn ? "sign-in" : "code"
        return Mail(subject: texts["courier.email.\(kind).subject"], text: texts["courier.email.\(kind).text"])
    }

    /// The note to an address or number an account already holds: no code, a pointer to sign-in.
    public static func accountExists(
        tenantName: String, channel: CourierMessage.Channel = .email, locale: String,
        overrides: [String: [String: String]] = [:]
    ) -> Mail {
        let texts = Texts(locale: locale, overrides: overrides, values: ["tenant": tenantName])
        if channel == .sms { return Mail(subject: "", text: texts["courier.sms.exists"]) }
        return Mail(subject: texts["courier.email.exists.subject"], text: texts["courier.email.exists.text"])
    }

    /// The texts of one message: the tenant's wording in the message's language, else the
    /// built-in one, placeholders filled.
    private struct Texts {
        let language: String
        let overrides: [String: String]
        let values: [String: String]

        init(locale: String, overrides: [String: [String: String]], values: [String: String]) {
            language = locale.lowercased().hasPrefix("ja") ? "ja" : "en"
            let spoken = String(locale.lowercased().split(separator: "-").first ?? "en")
            // The tenant's wording in the language asked (a language without built-in texts
            // falls back to English, and takes the tenant's English wording).
            self.overrides = overrides[CourierTemplates.builtIn[spoken] != nil ? spoken : "en"] ?? [:]
            self.values = values
        }

        subscript(key: String) -> String {
            var text = overrides[key] ?? CourierTemplates.builtIn[language]?[key] ?? ""
            for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
            return text
        }
    }
}
