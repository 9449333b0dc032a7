import Foundation
import GatewayAPI
import GatewayCore
import Testing

/// RP-initiated logout: only an ID token is a hint, and it ends its own login session.
@Suite("Logout: ID-token hints end their session; other tokens revoke nothing")
struct LogoutTests {
    /// Whether a refresh token still refreshes (rotating it: the caller keeps the new one).
    static func refreshes(_ kit: OAuthTestKit, _ token: inout String) async throws -> Bool {
        guard case .ok(let ok) = try await kit.refresh(token) else { return false }
        token = try ok.body.json.issuedRefreshToken
        return true
    }

    @Test("an access token or a mini-app token as id_token_hint is 400 invalid_request and revokes nothing")
    func nonIDTokenHints() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let tokens = try await kit.tokens()
            let auth = harness.bootstrap.services.auth
            let tenant = try #require(harness.bootstrap.services.directory.tenant("demo"))
            let claims = try jwtClaims(tokens.accessToken)
            let miniAppToken = try await SigningKeyTokenMinter(keys: auth.keys, issuer: { _ in kit.issuer })
                .mint(
                    tenant: tenant, subject: try #require(claims["sub"]?.stringValue), miniAppID: "hello",
                    audience: kit.clientID, scopes: ["s"], lifetime: .seconds(60)
                ).token
            for hint in [tokens.accessToken, miniAppToken, "not-a-jwt", tokens.issuedIDToken.dropLast(2) + "xx"] {
                let answer = try await RawHTTP.send(.GET, "\(kit.issuer)/oauth2/logout?id_token_hint=\(hint)")
                #expect(answer.status == 400, "hint \(hint.prefix(20))…: \(answer.status)")
                #expect(answer.body.contains("invalid_request"))
                let post = try await client.postLogout(
                    path: .init(tenant: "demo"), body: .urlEncodedForm(.init(idTokenHint: String(hint))))
                _ = try post.badRequest
            }
            var refresh = tokens.issuedRefreshToken
            #expect(try await Self.refreshes(kit, &refresh), "a refused hint revoked the session")
            #expect(try await kit.me(authorization: "Bearer \(tokens.accessToken)").status == 200)
        }
    }

    @Test(
        "an ID token hint ends its own session (sid), not the user's other sessions; refreshed ID tokens keep the sid",
        arguments: DatabaseBackend.available)
    func endsOneSession(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let phone = try await kit.tokens()
            let tablet = try await kit.tokens()
            let phoneSID = try #require(try jwtClaims(phone.issuedIDToken)["sid"]?.stringValue)
            let tabletSID = try #require(try jwtClaims(tablet.issuedIDToken)["sid"]?.stringValue)
            #expect(phoneSID != tabletSID)
            var phoneRefresh = phone.issuedRefreshToken
            guard case .ok(let refreshed) = try await kit.refresh(phoneRefresh) else {
                Issue.record("refresh failed")
                return
            }
            phoneRefresh = try refreshed.body.json.issuedRefreshToken
            #expect(try jwtClaims(try refreshed.body.json.issuedIDToken)["sid"]?.stringValue == phoneSID)

            let out = try await client.getLogout(
                path: .init(tenant: "demo"),
                query: .init(
                    idTokenHint: phone.issuedIDToken, postLogoutRedirectUri: "com.example.app:/bye", state: "s"))
            #expect(try out.found.headers.location == "com.example.app:/bye?state=s")
            #expect(try await !Self.refreshes(kit, &phoneRefresh))
            #expect(try await kit.me(authorization: "Bearer \(try refreshed.body.json.accessToken)").status == 401)
            var tabletRefresh = tablet.issuedRefreshToken
            #expect(try await Self.refreshes(kit, &tabletRefresh), "logout of one session ended another")
            #expect(try await kit.me(authorization: "Bearer \(tablet.accessToken)").status == 200)
        }
    }

    @Test("an expired ID token is still a hint; one for a client the tenant does not know is not")
    func expiredAndForeignHints() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let tokens = try await kit.tokens()
            var claims = try jwtClaims(tokens.issuedIDToken)
            claims["exp"] = .number((Date().timeIntervalSince1970 - 3600).rounded())
            claims["iat"] = .number((Date().timeIntervalSince1970 - 7200).rounded())
            let key = try await harness.bootstrap.services.auth.keys.signingKey(tenantID: "demo")
            var foreign = claims
            foreign["aud"] = "no-such-client"
            foreign["azp"] = "no-such-client"
            let foreignHint = try JWS.sign(claims: foreign, typ: "JWT", signingKey: key)
            _ = try await client.getLogout(path: .init(tenant: "demo"), query: .init(idTokenHint: foreignHint))
                .badRequest
            var refresh = tokens.issuedRefreshToken
            #expect(try await Self.refreshes(kit, &refresh))

            let expired = try JWS.sign(claims: claims, typ: "JWT", signingKey: key)
            _ = try await client.getLogout(path: .init(tenant: "demo"), query: .init(idTokenHint: expired)).ok
            #expect(try await !Self.refreshes(kit, &refresh))
        }
    }

    @Test(
        "sign out everywhere: the signed-out page's form, from the same browser, ends every session and removes the user's push devices",
        arguments: DatabaseBackend.available)
    func everywhere(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let phone = try await kit.tokens()
            let tablet = try await kit.tokens()
            let device = try await kit.authorizedClient("Bearer \(tablet.accessToken)").registerDevice(
                path: .init(tenant: "demo"),
                body: .json(.init(provider: .fcm, token: "tablet-token", platform: .android))
            ).created.body.json
            let subject = try #require(try await harness.operatorStores.auth.user(tenantID: "demo", username: kit.username)).subject
            let jar = CookieJar()
            let browser = Client.browser(port: port, jar: jar)
            let page = try await browser.getLogout(
                path: .init(tenant: "demo"), query: .init(idTokenHint: phone.issuedIDToken)
            ).ok
            let html = try await String(collecting: try page.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(html.contains("Sign out on all devices"))
            let csrf = try #require(
                html.range(of: #"name="csrf_token" value="([^"]+)""#, options: .regularExpression).map {
                    String(html[$0]).components(separatedBy: "value=\"")[1].dropLast()
                }.map(String.init))
            var tabletRefresh = tablet.issuedRefreshToken
            #expect(try await Self.refreshes(kit, &tabletRefresh), "the page alone must not end other sessions")

            let form = Components.Schemas.LogoutForm(
                idTokenHint: phone.issuedIDToken, everywhere: ._true, csrfToken: csrf)
            // Another browser (no cookie) cannot use the form.
            _ = try await client.postLogout(path: .init(tenant: "demo"), body: .urlEncodedForm(form)).forbidden
            #expect(try await Self.refreshes(kit, &tabletRefresh))
            let done = try await browser.postLogout(path: .init(tenant: "demo"), body: .urlEncodedForm(form)).ok
            #expect(
                try await String(collecting: try done.body.textHtmlCharsetUtf8, upTo: 1 << 20).contains("all devices"))
            #expect(try await !Self.refreshes(kit, &tabletRefresh))
            #expect(try await kit.me(authorization: "Bearer \(tablet.accessToken)").status == 401)
            let devices = try await harness.operatorStores.devices.devices(tenantID: "demo", userID: subject)
            #expect(!devices.contains { $0.id == device.id }, "a signed-out user's devices are removed")
        }
    }
}
