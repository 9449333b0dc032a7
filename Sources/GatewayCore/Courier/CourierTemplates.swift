/// The texts the courier sends, in English and Japanese (the languages of the hosted pages);
/// another language gets English. Tenants' own wording (l10n overrides) comes with SMS.
public enum CourierTemplates {
    /// One e-mail's subject and text.
    public struct Mail: Sendable, Equatable {
        public var subject: String
        public var text: String
    }

    /// The code that verifies an address, good for 10 minutes.
    public static func verificationCode(_ code: String, tenantName: String, locale: String) -> Mail {
        if japanese(locale) {
            return Mail(
                subject: "\(tenantName)の確認コード: \(code)",
                text: """
                    確認コードは \(code) です。10分間有効です。

                    このメールに心当たりがない場合は、破棄してください。
                    """)
        }
        return Mail(
            subject: "Your \(tenantName) code: \(code)",
            text: """
                Your verification code is \(code). It is good for 10 minutes.

                If you did not ask for it, ignore this e-mail.
                """)
    }

    /// The note to an address an account already holds: no code, a pointer to sign-in.
    public static func accountExists(tenantName: String, locale: String) -> Mail {
        if japanese(locale) {
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
