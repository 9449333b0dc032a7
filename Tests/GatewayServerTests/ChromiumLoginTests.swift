import Foundation
import GatewayAPI
import Testing

@Suite("Sign-in in a real browser (headless Chromium)")
struct ChromiumLoginTests {
    /// Debian's `chromium` and Python's `websocket-client` (scripts/test-requirements.txt).
    static var available: Bool {
        guard
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains(
                where: FileManager.default.isExecutableFile(atPath:))
        else { return false }
        return PythonScript.canImport("websocket")
    }

    /// At 360×740 the page fits (no sideways scroll); a wrong password shows the Japanese error
    /// with the password field focused; the right one reaches the redirect URI with a code.
    /// Screenshots at 360×740 and 1280×800 go to `.build/screenshots/` for review.
    @Test(.enabled(if: available, "chromium or python3 websocket-client is not installed (make test installs both)"))
    func signInOnAPhone() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let redirect = "http://127.0.0.1:9/callback"  // a loopback URI (any port); nothing listens on 9
            var components = URLComponents(string: "http://127.0.0.1:\(port)/t/demo/oauth2/authorize")!
            components.queryItems = [
                .init(name: "response_type", value: "code"), .init(name: "client_id", value: kit.clientID),
                .init(name: "redirect_uri", value: redirect),
                .init(name: "scope", value: "openid"), .init(name: "state", value: "st"),
                .init(name: "code_challenge", value: OAuthTestKit.challenge),
                .init(name: "code_challenge_method", value: "S256"), .init(name: "ui_locales", value: "ja"),
            ]
            let shots = RepositoryFile.url(".build/screenshots").path
            let (status, output) = try await PythonScript.run(
                "chromium_login.py", [components.string!, kit.username, kit.password, "ユーザー名またはパスワードが正しくありません。", shots])
            #expect(status == 0, "\(output)")
            #expect(
                output.contains("ok mobile layout") && output.contains("ok wrong password")
                    && output.contains("ok signed in"), "\(output)")
            #expect(FileManager.default.fileExists(atPath: shots + "/login-360x740.png"))
        }
    }
}

extension ChromiumLoginTests {
    /// A journey's hosted pages (issue 63 §3) in a phone-sized Chromium: sign-up in Japanese
    /// (a refusal beside its field), then sign-in in English, each ending at the app's redirect.
    @Test(.enabled(if: available, "chromium or python3 websocket-client is not installed (make test installs both)"))
    func journeysOnAPhone() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.redirectURI = "http://127.0.0.1:9/callback"  // nothing listens on 9
            try await kit.useTenantWithSignUp()
            try await kit.setUp()
            func hosted(_ kind: Components.Schemas.JourneyStart.KindPayload, _ locale: String) async throws -> String {
                try await kit.client.startJourney(
                    path: .init(tenant: kit.tenant),
                    body: .json(
                        .init(
                            kind: kind, clientId: kit.clientID, codeChallenge: OAuthTestKit.challenge,
                            codeChallengeMethod: .s256, redirectUri: kit.redirectURI, state: "st", uiLocales: locale))
                ).created.body.json.hostedUrl
            }
            let name = "chromium-" + UUID().uuidString.prefix(6).lowercased()
            let shots = RepositoryFile.url(".build/screenshots").path
            let (status, output) = try await PythonScript.run(
                "chromium_journey.py",
                [
                    try await hosted(.signUp, "ja"), try await hosted(.signIn, "en"), kit.redirectURI, name,
                    "a long enough password", "8文字以上のパスワードを設定してください。", shots,
                ])
            #expect(status == 0, "\(output)")
            for step in ["ok register page", "ok refused beside its field", "ok signed up", "ok signed in"] {
                #expect(output.contains(step), "\(step) missing: \(output)")
            }
            #expect(try await kit.store.user(tenantID: kit.tenant, username: name) != nil)
        }
    }
}
