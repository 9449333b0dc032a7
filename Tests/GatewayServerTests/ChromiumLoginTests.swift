import Foundation
import GatewayAPI
import Testing

@testable import GatewayCore

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
    /// A journey's hosted pages (issue 63 §3, §6) in a phone-sized Chromium: sign-up in Japanese
    /// (a refusal beside its field, then the codes sent by e-mail and SMS), sign-in with a phone
    /// number and an SMS code, recovery by e-mail, each ending at the app's redirect; then the
    /// browser's session signs a second client in silently, and `prompt=login` and `max_age=0`
    /// ask again.
    @Test(.enabled(if: available && SMTPSink.available, "chromium, websocket-client or aiosmtpd is not installed (make test installs them)"))
    func journeysOnAPhone() async throws {
        try await SMTPSink.with(.plain) { sink in
            try await SMSFake.with { sms in
                try await GatewayHarness.withGateway { harness, client, port in
                    var kit = OAuthTestKit(harness: harness, client: client, port: port)
                    kit.redirectURI = "http://127.0.0.1:9/callback"  // nothing listens on 9
                    try await kit.useTenant(
                        journeys: JourneySettings(
                            signUp: true, identifiers: [.username, .email, .phone], verify: [.email, .phone],
                            recovery: [.email], factors: [.password, .smsCode]),
                        smtpPort: sink.port, sms: sms)
                    try await kit.setUp()
                    var second = kit
                    second.clientID = "chromium-two"
                    try await second.setUp()
                    func hosted(_ kind: Components.Schemas.JourneyStart.KindPayload, _ locale: String) async throws -> String {
                        try await kit.client.startJourney(
                            path: .init(tenant: kit.tenant),
                            body: .json(
                                .init(
                                    kind: kind, clientId: kit.clientID, codeChallenge: OAuthTestKit.challenge,
                                    codeChallengeMethod: .s256, redirectUri: kit.redirectURI, state: "st", uiLocales: locale))
                        ).created.body.json.hostedUrl
                    }
                    func authorize(_ extra: String) -> String {
                        kit.base + "/t/\(kit.tenant)/oauth2/authorize?response_type=code&client_id=chromium-two"
                            + "&redirect_uri=\(AuthorizationServer.formEncode(kit.redirectURI))&scope=openid&state=st"
                            + "&code_challenge=\(OAuthTestKit.challenge)&code_challenge_method=S256&" + extra
                    }
                    let name = "chromium-" + UUID().uuidString.prefix(6).lowercased()
                    let config: [String: String] = [
                        "signUp": try await hosted(.signUp, "ja"), "signIn": try await hosted(.signIn, "en"),
                        "recovery": try await hosted(.recovery, "en"), "silent": authorize("prompt=none"),
                        "login": authorize("prompt=login"), "maxAge": authorize("max_age=0"), "redirect": kit.redirectURI,
                        "username": name, "email": "\(name)@example.com", "phone": "+8190" + String(UInt32.random(in: 10_000_000...99_999_999)),
                        "password": "a long enough password", "newPassword": "a new password after recovery",
                        "shortError": "8文字以上のパスワードを設定してください。", "mailDir": sink.folder.path,
                        "smsDir": sms.folder.path, "screenshots": RepositoryFile.url(".build/screenshots").path,
                    ]
                    let file = sink.folder.appendingPathComponent("chromium-journey.json")
                    try JSONEncoder().encode(config).write(to: file)
                    let (status, output) = try await PythonScript.run("chromium_journey.py", [file.path])
                    #expect(status == 0, "\(output)")
                    for step in [
                        "ok register page", "ok refused beside its field", "ok signed up", "ok signed in by SMS",
                        "ok recovered", "ok silent sign-in", "ok asked again",
                    ] {
                        #expect(output.contains(step), "\(step) missing: \(output)")
                    }
                    let user = try #require(try await kit.store.user(tenantID: kit.tenant, username: name))
                    #expect(user.email == "\(name)@example.com" && user.phone == config["phone"])
                }
            }
        }
    }

    /// Issue 64: passkeys on the hosted pages with a virtual authenticator: a sign-up without a
    /// password in Japanese, then a sign-in by conditional mediation with no username typed.
    @Test(.enabled(if: available, "chromium or websocket-client is not installed (make test installs them)"))
    func passkeysOnAPhone() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.redirectURI = "http://127.0.0.1:9/callback"  // nothing listens on 9
            // http://localhost is a secure context whose host may be an RP ID (an IP address may not).
            try await kit.useTenant(
                journeys: JourneySettings(signUp: true, identifiers: [.username], factors: [.passkey]),
                passkeys: PasskeySettings(rpId: "localhost", origins: ["http://localhost:\(port)"]))
            try await kit.setUp()
            // A second tenant where people have a password and step up with a passkey.
            var stepUp = kit
            try await stepUp.useTenant(
                journeys: JourneySettings(
                    identifiers: [.username], factors: [.password, .passkey], stepUp: ["urn:acme:loa:3": [.passkey]]),
                passkeys: PasskeySettings(rpId: "localhost", origins: ["http://localhost:\(port)"]))
            try await stepUp.setUp()
            func hosted(
                _ kit: OAuthTestKit, _ kind: Components.Schemas.JourneyStart.KindPayload, _ locale: String,
                acrValues: String? = nil
            ) async throws -> String {
                try await kit.client.startJourney(
                    path: .init(tenant: kit.tenant),
                    body: .json(
                        .init(
                            kind: kind, clientId: kit.clientID, codeChallenge: OAuthTestKit.challenge,
                            codeChallengeMethod: .s256, acrValues: acrValues, redirectUri: kit.redirectURI, state: "st",
                            uiLocales: locale))
                ).created.body.json.hostedUrl.replacingOccurrences(of: "http://127.0.0.1:", with: "http://localhost:")
            }
            let name = "passkey-" + UUID().uuidString.prefix(6).lowercased()
            let config: [String: String] = [
                "signUp": try await hosted(kit, .signUp, "ja"), "signIn": try await hosted(kit, .signIn, "en"),
                "redirect": kit.redirectURI, "username": name,
                "screenshots": RepositoryFile.url(".build/screenshots").path,
                "passwordSignIn": try await hosted(stepUp, .signIn, "en"),
                "stepUp": try await hosted(stepUp, .signIn, "ja", acrValues: "urn:acme:loa:3"),
                "stepUpUser": stepUp.username, "stepUpPassword": stepUp.password,
            ]
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-passkey-\(name).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try JSONEncoder().encode(config).write(to: file)
            let (status, output) = try await PythonScript.run("chromium_passkey.py", [file.path])
            #expect(status == 0, "\(output)")
            for step in [
                "ok register page", "ok signed up with a passkey", "ok signed in with a passkey",
                "ok made a passkey after the password", "ok stepped up with the passkey",
            ] {
                #expect(output.contains(step), "\(step) missing: \(output)")
            }
            let user = try #require(try await kit.store.user(tenantID: kit.tenant, username: name))
            let passkeys = try await kit.store.passkeys(tenantID: kit.tenant, subject: user.subject)
            #expect(passkeys.count == 1 && passkeys.first?.lastUsedAt != nil, "signed in with the passkey it made")
        }
    }
}
