/// The texts the courier sends, in English and Japanese (the languages of the hosted pages);
/// another language gets English. Tenants' own wording (l10n overrides) comes next.
public enum CourierTemplates {
    /// One message's subject (e-mail only; empty for SMS) and text.
    public struct Mail: Sendable, Equatable {
        public var subject: String
        public var text: String
    }

    /// A code for `purpose`, good for 10 minutes: an e-mail, or an SMS short enough for one
    /// segment in English (the code first, so a lock screen shows it).
    public static func code(
        _ code: String, purpose: OneTimeCodes.Purpose, tenantName: String, channel: CourierMessage.Channel,
        locale: String
    ) -> Mail {
        let ja = japanese(locale)
        if channel == .sms {
            return Mail(
                subject: "",
                text: ja
                    ? "\(code) は\(tenantName)の確認コードです（10分間有効）。他の人に教えないでください。"
                    : "\(code) is your \(tenantName) code. It is good for 10 minutes. Never share it.")
        }
        let signIn = purpose == .signIn
        if ja {
            return Mail(
                subject: "\(tenantName)の\(signIn ? "サインイン" : "確認")コード: \(code)",
                text: """
                    \(signIn ? "サインインコード" : "確認コード")は \(code) です。10分間有効です。

                    このメールに心当たりがない場合は、破棄してください。
                    """)
        }
        return Mail(
            subject: "Your \(tenantName) \(signIn ? "sign-in " : "")code: \(code)",
            text: """
                Your \(signIn ? "sign-in" : "verification") code is \(code). It is good for 10 minutes.

                If you did not ask for it, ignore this e-mail.
                """)
    }

    /// The code that verifies an e-mail address.
    public static func verificationCode(_ code: String, tenantName: String, locale: String) -> Mail {
        Self.code(code, purpose: .verifyEmail, tenantName: tenantName, channel: .email, locale: locale)
    }

    /// The note to an address or number an account already holds: no code, a pointer to sign-in.
    public static func accountExists(tenantName: String, channel: CourierMessage.Channel = .email, locale: String) -> Mail {
        let ja = japanese(locale)
        if channel == .sms {
            return Mail(
                subject: "",
                text: ja
                    ? "この番号で\(tenantName)のアカウントを作成しようとする操作がありました。すでにアカウントをお持ちです。サインインしてください。"
                    : "Someone tried to create a \(tenantName) account with this number. You already have one: sign in.")
        }
        if ja {
            return Mail(
                subject: "\(tenantName)のアカウントについて",
                text: """
                    このメールアドレスでアカウントを作成しようとする操作がありました。すでにアカウントをお持ちです。
                    サインインするか、パスワードをお忘れの場合は再設定してください。

                    心当たりがない場合は、このメールを破棄してください。
                    """)
        }
        return Mail(
            subject: "About your \(tenantName) account",
            text: """
                Someone tried to create an account with this address. You already have one:
                sign in, or reset your password if you forgot it.

                If it was not you, ignore this e-mail.
                """)
    }

    private static func japanese(_ locale: String) -> Bool { locale.lowercased().hasPrefix("ja") }
}
