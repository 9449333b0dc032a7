import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
@testable import GatewayServer
import Testing

@Suite("Sign-in page: localized, themed, mobile-safe")
struct LoginPageTests {
    @Test("language: ui_locales first, then Accept-Language, else English")
    func negotiation() {
        #expect(LoginTexts.negotiate(uiLocales: "fr ja-JP", acceptLanguage: "en") == "ja")
        #expect(LoginTexts.negotiate(uiLocales: "fr", acceptLanguage: "ja-JP,ja;q=0.9,en;q=0.8") == "ja")
        #expect(LoginTexts.negotiate(uiLocales: nil, acceptLanguage: "de-DE,de;q=0.9") == "en")
        #expect(LoginTexts.negotiate(uiLocales: nil, acceptLanguage: nil) == "en")
        #expect(LoginTexts(locale: "ja").text("login.title", ["tenant": "Acme"]) == "Acmeにサインイン")
        // A language a tenant added through overrides can be negotiated.
        #expect(LoginTexts.negotiate(uiLocales: "fr", acceptLanguage: nil, tenantLanguages: ["fr"]) == "fr")
        #expect(LoginTexts.negotiate(uiLocales: nil, acceptLanguage: "fr-CA,fr;q=0.9", tenantLanguages: ["fr"]) == "fr")
    }

    @Test(
        "texts layer built-in English < tenant English < built-in language < tenant language; one language's overrides never reach another's page"
    )
    func layering() {
        let overrides = [
            "ja": ["login.submit": "ログイン", "miniapp.other": "x"],
            "en": ["login.submit": "Log in", "login.username": "User ID"], "fr": ["login.submit": "Connexion"],
        ]
        let ja = LoginTexts(locale: "ja", tenantOverrides: overrides)
        #expect(ja.text("login.submit") == "ログイン")
        #expect(ja.text("login.username") == "ユーザー名")
        #expect(ja.text("miniapp.other") == "miniapp.other")
        let en = LoginTexts(locale: "en", tenantOverrides: overrides)
        #expect(en.text("login.submit") == "Log in" && en.text("login.username") == "User ID")
        // An added language falls back to the tenant's English, then the built-in English.
        let fr = LoginTexts(locale: "fr", tenantOverrides: overrides)
        #expect(
            fr.text("login.submit") == "Connexion" && fr.text("login.username") == "User ID"
                && fr.text("login.password") == "Password")
        // Every error page reason has a text in both built-in languages.
        for reason in AuthorizationPageError.allCases {
            #expect(LoginTexts(locale: "en").text(reason.key) == reason.message)
            #expect(LoginTexts(locale: "ja").text(reason.key) != reason.message)
        }
    }

    @Test("a tenant logo shows only from an https origin the CSP names in img-src; nothing else may load images")
    func logoPolicy() {
        #expect(LoginPage.logoSource("https://cdn.example.com/acme/logo.png") == "https://cdn.example.com")
        #expect(LoginPage.logoSource("http://cdn.example.com/logo.png") == nil)
        #expect(LoginPage.logoSource("data:image/png;base64,AAAA") == nil)
        let policy = LoginPage.contentSecurityPolicy(
            redirectingTo: "https://app.example.com/cb", logoURL: "https://cdn.example.com:8443/l.png")
        #expect(policy.contains("; img-src https://cdn.example.com:8443; form-action 'self' https://app.example.com;"))
        #expect(!LoginPage.contentSecurityPolicy(redirectingTo: "https://app.example.com/cb").contains("img-src"))
    }

    @Test(
        "the form may be redirected to the client: form-action allows the validated redirect URI's origin or scheme, nothing a header could not carry"
    )
    func formActionSource() {
        #expect(LoginPage.formActionSource("com.example.app:/callback") == "com.example.app:")
        #expect(LoginPage.formActionSource("https://app.example.com:8443/cb?x=1") == "https://app.example.com:8443")
        #expect(LoginPage.formActionSource("http://127.0.0.1:9/callback") == "http://127.0.0.1:9")
        #expect(LoginPage.formActionSource("https://evil.example;script-src *") == nil)
        #expect(
            LoginPage.contentSecurityPolicy(redirectingTo: "com.example.app:/cb").contains(
                "form-action 'self' com.example.app:;"))
    }

    @Test(
        "GET renders in the negotiated language with the tenant's name, colour and a layout that fits 320 px; a wrong password comes back localized, announced and focused; l10n overrides apply"
    )
    func renderedPage() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            try await harness.updateTenant("demo") {
                $0.theme.primaryColor = "#0A7B83"
                $0.theme.logoURL = "https://cdn.example.com/demo/logo.png?v=1&s=2"
            }
            // An English rewording must not reach the Japanese page.
            try await harness.operatorStores.localization.set(
                ["login.username": "User ID"], tenantID: "demo", locale: "en")
            let jar = CookieJar()
            let browser = Client.browser(port: port, jar: jar)
            let page = try await browser.getAuthorize(
                path: .init(tenant: "demo"),
                query: .init(
                    responseType: "code", clientId: kit.clientID, redirectUri: kit.redirectURI, scope: "openid",
                    state: "st-1", nonce: "n-1",
                    codeChallenge: OAuthTestKit.challenge, codeChallengeMethod: "S256", uiLocales: "fr ja")
            ).ok
            let html = try await String(collecting: try page.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(html.contains("<html lang=\"ja\">"))
            #expect(html.contains("Demoにサインイン") || html.contains("にサインイン"))
            #expect(html.contains(">ユーザー名</label>") && html.contains(">パスワード</label>"))
            #expect(
                html.contains("box-sizing:border-box") && html.contains("min-height:44px")
                    && html.contains("prefers-color-scheme:dark"))
            #expect(html.contains("#0A7B83"))
            #expect(
                html.contains(
                    "<img class=\"logo\" src=\"https://cdn.example.com/demo/logo.png?v=1&amp;s=2\" alt=\"Demo"))
            #expect(page.headers.contentSecurityPolicy?.contains("img-src https://cdn.example.com;") == true)
            #expect(!html.contains("User ID"))
            // One script (the show-password toggle), allowed by its hash and nothing else.
            #expect(html.components(separatedBy: "<script").count == 2)
            #expect(
                page.headers.contentSecurityPolicy?.contains("script-src '\(LoginPage.showPasswordScriptHash)'") == true
            )
            #expect(html.contains("パスワードを表示"))
            #expect(html.contains("name=\"ui_locales\" value=\"fr ja\""))

            // Accept-Language alone picks Japanese too.
            var request = HTTPClientRequest(
                url: "http://127.0.0.1:\(port)/t/demo/oauth2/authorize?response_type=code&client_id=\(kit.clientID)"
                    + "&redirect_uri=\(kit.redirectURI.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&scope=openid&state=s"
                    + "&code_challenge=\(OAuthTestKit.challenge)&code_challenge_method=S256")
            request.headers.add(name: "Accept-Language", value: "ja-JP,ja;q=0.9,en;q=0.5")
            let negotiated = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
            #expect(String(buffer: try await negotiated.body.collect(upTo: 1 << 20)).contains("<html lang=\"ja\">"))

            // A wrong password: the same page, the error in Japanese, announced, the password field focused.
            let csrf = try #require(
                html.range(of: #"name="csrf_token" value="([^"]+)""#, options: .regularExpression).map {
                    String(html[$0]).components(separatedBy: "value=\"")[1].dropLast()
                }.map(String.init))
            var form = kit.form(password: "wrong-password")
            form.scope = "openid"
            form.csrfToken = csrf
            form.uiLocales = "fr ja"
            let refused = try await browser.postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(form))
            let again = try await String(collecting: try refused.unauthorized.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(again.contains("role=\"alert\"") && again.contains("ユーザー名またはパスワードが正しくありません。"))
            #expect(again.contains("aria-invalid=\"true\" aria-describedby=\"error\" autofocus"))

            // The tenant rewords a text through its localization overrides.
            try await harness.operatorStores.localization.set(["login.submit": "ログイン"], tenantID: "demo", locale: "ja")
            let reworded = try await browser.getAuthorize(
                path: .init(tenant: "demo"),
                query: .init(
                    responseType: "code", clientId: kit.clientID, redirectUri: kit.redirectURI, scope: "openid",
                    state: "st-2",
                    codeChallenge: OAuthTestKit.challenge, codeChallengeMethod: "S256", uiLocales: "ja")
            ).ok
            #expect(
                try await String(collecting: try reworded.body.textHtmlCharsetUtf8, upTo: 1 << 20).contains(
                    ">ログイン</button>"))

            // Error pages outside the form speak the page's language too.
            let unknown = try await browser.getAuthorize(
                path: .init(tenant: "demo"),
                query: .init(
                    responseType: "code", clientId: "no-such-client", redirectUri: kit.redirectURI, scope: "openid",
                    state: "st-3",
                    codeChallenge: OAuthTestKit.challenge, codeChallengeMethod: "S256", uiLocales: "ja")
            ).forbidden
            let unknownHTML = try await String(collecting: try unknown.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(
                unknownHTML.contains("<html lang=\"ja\">") && unknownHTML.contains("<title>サインインエラー</title>")
                    && unknownHTML.contains("不明なクライアントです。"))
        }
    }
}
