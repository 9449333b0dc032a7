import Testing

@testable import GatewayCore

/// The courier's texts (issue 63 §4): built-in English and Japanese, every key in both, and a
/// tenant's wording per language with its placeholders filled, never crossing languages.
@Suite("Courier templates")
struct CourierTemplatesTests {
    @Test("every text has English and Japanese; placeholders are filled")
    func builtIn() {
        #expect(Set(CourierTemplates.english.keys) == Set(CourierTemplates.japanese.keys))
        #expect(CourierTemplates.english.keys.allSatisfy { $0.hasPrefix(CourierTemplates.keyPrefix) })
        let sms = CourierTemplates.code("123456", purpose: .signIn, tenantName: "Acme", channel: .sms, locale: "en-GB")
        #expect(sms == .init(subject: "", text: "123456 is your Acme code. It is good for 10 minutes. Never share it."))
        let mail = CourierTemplates.code("123456", purpose: .signIn, tenantName: "Acme", channel: .email, locale: "ja")
        #expect(mail.subject == "Acmeのサインインコード: 123456" && mail.text.hasPrefix("サインインコードは 123456 です。"))
        #expect(!mail.text.contains("{") && !sms.text.contains("{"))
    }

    @Test("a tenant's wording applies in its language only; other keys stay built in")
    func overrides() {
        let overrides = ["en": ["courier.email.code.subject": "{code} — {tenant} verification"], "ja": [:]]
        let english = CourierTemplates.code(
            "654321", purpose: .verifyEmail, tenantName: "Acme", channel: .email, locale: "en", overrides: overrides)
        #expect(english.subject == "654321 — Acme verification")
        #expect(english.text.hasPrefix("Your verification code is 654321."))
        let japanese = CourierTemplates.code(
            "654321", purpose: .verifyEmail, tenantName: "Acme", channel: .email, locale: "ja", overrides: overrides)
        #expect(japanese.subject == "Acmeの確認コード: 654321", "English wording never reaches a Japanese message")
        // A language without built-in texts gets English, with the tenant's English wording.
        let french = CourierTemplates.code(
            "654321", purpose: .verifyEmail, tenantName: "Acme", channel: .email, locale: "fr", overrides: overrides)
        #expect(french.subject == "654321 — Acme verification")
    }
}
