import Foundation
import GatewayCore

/// The texts of the sign-in pages in one language: built-in English and Japanese, overlaid by
/// the tenant's localization overrides under `login.*` and `journey.*` keys (`gatewayctl l10n
/// set --locale ja login.submit=…`), so a tenant can reword or add a language without a release.
/// The journeys' screens (``JourneyTexts``) share them.
struct LoginTexts: Sendable {
    /// The BCP 47 language of the page (`<html lang>`).
    let locale: String
    private let entries: [String: String]

    /// The prefixes of the keys a tenant's overrides may set here.
    static let prefixes = ["login.", "journey."]

    /// The built-in languages: the sign-in page's texts and the journeys'.
    static let builtIn = signIn.merging(JourneyTexts.builtIn) { page, journeys in page.merging(journeys) { a, _ in a } }

    static let signIn: [String: [String: String]] = [
        "en": [
            "login.title": "Sign in to {tenant}",
            "login.username": "Username",
            "login.password": "Password",
            "login.submit": "Sign in",
            "login.show_password": "Show password",
            "login.continue_with": "Continue with {name}",
            "login.error.federation":
                "This sign-in expired or was started in another browser. Go back to the app and start again.",
            "login.error.title": "Sign-in error",
            "login.error.credentials": "Incorrect username or password.",
            "login.error.throttled":
                "Too many sign-in attempts for this account from your network. Please wait {seconds} s and try again.",
            "login.error.expired": "The sign-in form expired or was not submitted from this site. Please start again.",
            "login.error.too_long": "The {parameter} parameter is too long.",
            "login.error.otp": "That code is not right. Enter the current code from your authenticator app.",
            "login.error.session": "This sign-in took too long or was interrupted. Please start again.",
            "login.otp.title": "Enter your one-time code",
            "login.otp.hint": "Open your authenticator app and enter the 6-digit code for {tenant}.",
            "login.otp.label": "One-time code",
            "login.otp.submit": "Verify",
            "login.consent.title": "Allow {client}?",
            "login.consent.hint": "{client} ({host}) asks to:",
            "login.consent.scope.openid": "Know who you are at {tenant}",
            "login.consent.scope.profile": "See your name and username",
            "login.consent.scope.email": "See your e-mail address",
            "login.consent.scope.phone": "See your phone number",
            "login.consent.scope.offline_access": "Stay signed in while you are away",
            "login.consent.scope.other": "Use “{scope}” for you",
            "login.consent.allow": "Allow",
            "login.consent.deny": "Deny",
            "login.error.request_uri_invalid": AuthorizationPageError.requestURIInvalid.message,
            "login.error.request_uri_unknown": AuthorizationPageError.requestURIUnknown.message,
            "login.error.unknown_client": AuthorizationPageError.unknownClient.message,
            "login.error.redirect_uri_not_registered": AuthorizationPageError.redirectURINotRegistered.message,
            "login.error.redirect_uri_required": AuthorizationPageError.redirectURIRequired.message,
        ],
        "ja": [
            "login.title": "{tenant}にサインイン",
            "login.username": "ユーザー名",
            "login.password": "パスワード",
            "login.submit": "サインイン",
            "login.show_password": "パスワードを表示",
            "login.continue_with": "{name}で続行",
            "login.error.federation": "このサインインは期限切れか、別のブラウザーで開始されました。アプリに戻ってやり直してください。",
            "login.error.title": "サインインエラー",
            "login.error.credentials": "ユーザー名またはパスワードが正しくありません。",
            "login.error.throttled": "このネットワークからのサインイン試行が多すぎます。{seconds}秒待ってから、もう一度お試しください。",
            "login.error.expired": "サインインフォームの有効期限が切れたか、このサイトから送信されていません。最初からやり直してください。",
            "login.error.too_long": "{parameter} パラメーターが長すぎます。",
            "login.error.otp": "コードが正しくありません。認証アプリに表示されている現在のコードを入力してください。",
            "login.error.session": "サインインに時間がかかりすぎたか、中断されました。最初からやり直してください。",
            "login.otp.title": "ワンタイムコードを入力",
            "login.otp.hint": "認証アプリを開き、{tenant}の6桁のコードを入力してください。",
            "login.otp.label": "ワンタイムコード",
            "login.otp.submit": "確認",
            "login.consent.title": "{client}を許可しますか?",
            "login.consent.hint": "{client}({host})が次を求めています:",
            "login.consent.scope.openid": "{tenant}でのあなたのアカウントを知る",
            "login.consent.scope.profile": "名前とユーザー名を見る",
            "login.consent.scope.email": "メールアドレスを見る",
            "login.consent.scope.phone": "電話番号を見る",
            "login.consent.scope.offline_access": "不在中もサインインを維持する",
            "login.consent.scope.other": "あなたの代わりに「{scope}」を使う",
            "login.consent.allow": "許可",
            "login.consent.deny": "拒否",
            "login.error.request_uri_invalid": "request_uri が無効です。",
            "login.error.request_uri_unknown": "request_uri が不明か、有効期限切れか、使用済みです。",
            "login.error.unknown_client": "不明なクライアントです。",
            "login.error.redirect_uri_not_registered": "この redirect_uri はこのクライアントに登録されていません。",
            "login.error.redirect_uri_required": "redirect_uri が必要です。",
        ],
    ]

    /// The language to show: the first of `ui_locales` (space-separated) that has texts, else
    /// the best of `Accept-Language`, else English. `tenantLanguages` are the languages a
    /// tenant added through `login.*` overrides.
    static func negotiate(uiLocales: String?, acceptLanguage: String?, tenantLanguages: Set<String> = []) -> String {
        let available = Set(builtIn.keys).union(tenantLanguages)
        if let uiLocales {
            for tag in uiLocales.split(separator: " ").prefix(16) {
                let language = tag.split(separator: "-").first.map { $0.lowercased() } ?? ""
                if available.contains(language) { return language }
            }
        }
        let chosen = AcceptLanguage.negotiate(acceptLanguage, available: available, fallback: "en")
        return chosen.split(separator: "-").first.map(String.init) ?? "en"
    }

    /// The texts for the language `locale`, layered least specific first: built-in English,
    /// the tenant's English overrides, the built-in texts of `locale`, the tenant's overrides of
    /// `locale`. `tenantOverrides` maps a language to its `login.*` texts; other languages'
    /// overrides never leak in (an English rewording stays off the Japanese page).
    init(locale: String, tenantOverrides: [String: [String: String]] = [:]) {
        self.locale = locale
        var entries = Self.builtIn["en"] ?? [:]
        for layer in [
            tenantOverrides["en"], locale == "en" ? nil : Self.builtIn[locale],
            locale == "en" ? nil : tenantOverrides[locale],
        ] {
            entries.merge((layer ?? [:]).filter { key, _ in Self.prefixes.contains { key.hasPrefix($0) } }) {
                _, specific in specific
            }
        }
        self.entries = entries
    }

    /// The text of `key` with `{name}` placeholders filled (values are plain text; the page
    /// escapes the result).
    func text(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = entries[key] ?? key
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }
}
