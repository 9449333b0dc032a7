import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import GatewayServer
import NIOCore
import Testing

@Suite("OAuth flows end to end (generated client, real sockets)")
struct OAuthFlowTests {
    @Test("discovery and JWKS describe the tenant issuer; the first key is created on first use")
    func discovery() async throws {
        try await GatewayHarness.withGateway { _, client, port in
            let meta = try await client.getOpenIDConfiguration(path: .init(tenant: "demo")).ok.body.json
            #expect(meta.issuer == "http://127.0.0.1:\(port)/t/demo")
            #expect(meta.codeChallengeMethodsSupported == ["S256"])
            #expect(meta.authorizationResponseIssParameterSupported == true)
            #expect(meta.dpopSigningAlgValuesSupported == ["ES256"])
            #expect(meta.pushedAuthorizationRequestEndpoint == "http://127.0.0.1:\(port)/t/demo/oauth2/par")
            // RFC 8414: both locations serve the same document for the same issuer.
            let rfc8414 = try await client.getOAuthServerMetadata(path: .init(tenant: "demo")).ok.body.json
            let relative = try await client.getTenantOAuthServerMetadata(path: .init(tenant: "demo")).ok.body.json
            for metadata in [rfc8414, relative] {
                #expect(metadata.issuer == meta.issuer)
                #expect(
                    metadata.tokenEndpoint == meta.tokenEndpoint
                        && metadata.authorizationEndpoint == meta.authorizationEndpoint)
                #expect(metadata.jwksUri == meta.jwksUri && metadata.codeChallengeMethodsSupported == ["S256"])
            }
            let unknown = try await client.getOAuthServerMetadata(path: .init(tenant: "no-such-tenant"))
            guard case .notFound(let problem) = unknown else {
                Issue.record("an unknown tenant's RFC 8414 metadata: \(unknown)")
                return
            }
            #expect(try problem.body.applicationProblemJson.code == "tenant_not_found")
            // OpenID Connect Discovery §3: RS256 for ID tokens; the JWKS has a key of each algorithm.
            #expect(meta.idTokenSigningAlgValuesSupported == ["RS256", "ES256"])
            let jwks = try await client.getJWKS(path: .init(tenant: "demo")).ok.body.json
            #expect(jwks.keys.count == 2)
            #expect(jwks.keys.contains { $0.kty == .ec && $0.crv == "P-256" && $0.alg == "ES256" && $0.x != nil })
            #expect(jwks.keys.contains { $0.kty == .rsa && $0.alg == "RS256" && $0.n != nil && $0.e == "AQAB" })
        }
    }

    @Test(
        "native JSON login → code → token → /v1/me → refresh → rotated refresh → revoke → logout",
        arguments: DatabaseBackend.available)
    func nativeFlow(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let tokens = try await kit.tokens()
            #expect(tokens.tokenType == .bearer)
            let header = try jwtHeader(tokens.accessToken)
            #expect(header["typ"] == "at+jwt")
            #expect(header["alg"] == "ES256")
            let claims = try jwtClaims(tokens.accessToken)
            for name in ["iss", "sub", "aud", "client_id", "iat", "exp", "jti", "scope", "tenant"] {
                #expect(claims[name] != nil, "missing \(name)")
            }
            #expect(claims["iss"]?.stringValue == kit.issuer)
            #expect(try jwtClaims(tokens.issuedIDToken)["nonce"] == "n-1")

            let me = try await kit.authorizedClient("Bearer \(tokens.accessToken)").getMe(path: .init(tenant: "demo"))
                .ok.body.json
            #expect(me.name == "Alice")
            #expect(me.sub == claims["sub"]?.stringValue)
            let info = try await kit.authorizedClient("Bearer \(tokens.accessToken)").getUserInfo(
                path: .init(tenant: "demo")
            ).ok.body.json
            #expect(info.email == "alice@example.test")

            let refreshed = try await kit.refresh(tokens.issuedRefreshToken).ok.body.json
            #expect(refreshed.issuedRefreshToken != tokens.issuedRefreshToken)
            // OpenID Connect Core §12.2: the same auth_time, and no nonce (it belonged to the
            // authentication request, not to this refresh).
            let original = try jwtClaims(tokens.issuedIDToken)
            let renewed = try jwtClaims(refreshed.issuedIDToken)
            #expect(original["auth_time"] != nil && renewed["auth_time"] == original["auth_time"])
            #expect(renewed["nonce"] == nil)
            let again = try await kit.refresh(refreshed.issuedRefreshToken).ok.body.json

            _ = try await client.revokeToken(
                path: .init(tenant: "demo"),
                body: .urlEncodedForm(.init(token: again.issuedRefreshToken, clientId: kit.clientID))
            ).ok
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(again.issuedRefreshToken)) == "invalid_grant")
            #expect(try await kit.me(authorization: "Bearer \(again.accessToken)").status == 401)

            let second = try await kit.tokens()
            let logout = try await client.getLogout(
                path: .init(tenant: "demo"),
                query: .init(
                    idTokenHint: second.issuedIDToken, postLogoutRedirectUri: "com.example.app:/bye", state: "s"))
            #expect(try logout.found.headers.location == "com.example.app:/bye?state=s")
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(second.issuedRefreshToken)) == "invalid_grant")
        }
    }

    @Test(
        "browser form: GET renders an accessible form with CSRF token, cookie and CSP; POST from the same browser signs in and 303s with code, state, iss"
    )
    func browserFlow() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let jar = CookieJar()
            let browser = Client.browser(port: port, jar: jar)
            let page = try await browser.getAuthorize(
                path: .init(tenant: "demo"),
                query: .init(
                    responseType: "code", clientId: kit.clientID, redirectUri: kit.redirectURI, scope: "openid profile",
                    state: "st-1", nonce: "n-1",
                    codeChallenge: OAuthTestKit.challenge, codeChallengeMethod: "S256")
            ).ok
            #expect(page.headers.contentSecurityPolicy?.contains("default-src 'none'") == true)
            // An http:// issuer (tests): a plain cookie; https issuers get `__Host-gw-csrf` + Secure.
            let setCookie = try #require(page.headers.setCookie)
            #expect(
                setCookie.hasPrefix("gw-csrf=") && setCookie.contains("HttpOnly")
                    && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
            #expect(jar.all["gw-csrf"] != nil)
            let html = try await String(collecting: try page.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(html.contains("<label for=\"username\">"))
            #expect(html.contains("<label for=\"password\">"))
            let csrf = try #require(
                html.range(of: #"name="csrf_token" value="([^"]+)""#, options: .regularExpression).map {
                    String(html[$0]).components(separatedBy: "value=\"")[1].dropLast()
                }.map(String.init))

            var form = kit.form()
            form.scope = "openid profile"
            form.csrfToken = csrf
            // The token is bound to the browser that got the form: without its cookie, or
            // with another browser's cookie, the post is refused (no sign-in, no code).
            let cookieless = try await client.postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(form))
            _ = try cookieless.forbidden
            let otherJar = CookieJar()
            otherJar.set("gw-csrf", Base64URL.random(byteCount: 16))
            let other = try await Client.browser(port: port, jar: otherJar).postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(form))
            _ = try other.forbidden

            let post = try await browser.postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(form))
            let location = try post.seeOther.headers.location
            let items = try #require(URLComponents(string: location)?.queryItems)
            #expect(location.hasPrefix(kit.redirectURI + "?"))
            #expect(items.first { $0.name == "state" }?.value == "st-1")
            #expect(items.first { $0.name == "iss" }?.value == kit.issuer)
            let code = try #require(items.first { $0.name == "code" }?.value)
            _ = try await kit.exchange(code).ok

            // A forged CSRF token is refused even with the right cookie.
            form.csrfToken = "1.forged"
            let forged = try await browser.postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(form))
            _ = try forged.forbidden
        }
    }

    @Test("the sign-in form's CSRF token lasts 15 minutes on the gateway's clock, then the post is refused")
    func csrfTokenExpiresOnTheGatewayClock() async throws {
        let time = ManualClock(Date())
        try await GatewayHarness.withGateway(clock: time.clock) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let browser = Client.browser(port: port, jar: CookieJar())
            let page = try await browser.getAuthorize(
                path: .init(tenant: "demo"),
                query: .init(
                    responseType: "code", clientId: kit.clientID, redirectUri: kit.redirectURI, scope: "openid",
                    state: "st-1", codeChallenge: OAuthTestKit.challenge, codeChallengeMethod: "S256")
            ).ok
            let html = try await String(collecting: try page.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            var form = kit.form(password: "not-the-password")
            form.scope = "openid"
            form.csrfToken = try AuthorizationChallengeTests.hidden("csrf_token", in: html)
            func post() async throws -> Operations.PostAuthorize.Output {
                try await browser.postAuthorize(
                    path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                    body: .urlEncodedForm(form))
            }
            time.advance(by: .seconds(899))
            // Still within its lifetime: the password is checked (and is wrong).
            _ = try await post().unauthorized
            time.advance(by: .seconds(2))
            let expired = try await String(collecting: try await post().forbidden.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(expired.contains("role=\"alert\"") && !expired.contains("name=\"password\""))
        }
    }

    @Test(
        "wrong password and unknown user get the same answer; 30 rapid guesses are mostly throttled, the owner gets in after the wait"
    )
    func loginFailures() async throws {
        // The throttle's gates run on the gateway's clock: the test moves it past the wait.
        let time = ManualClock(Date())
        try await GatewayHarness.withGateway(clock: time.clock) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let wrong = try await kit.nativeLogin(kit.form(password: "nope-nope")).unauthorized.body.json
            let unknown = try await kit.nativeLogin(kit.form(username: "mallory", password: "nope-nope")).unauthorized
                .body.json
            #expect(wrong == unknown)
            // 30 guesses at one account from one address: the first few are checked, the rest
            // are refused as throttled without a password check.
            var checked = 1
            var throttled: Operations.PostAuthorize.Output.TooManyRequests?
            for _ in 0..<30 {
                switch try await kit.nativeLogin(kit.form(password: "guess-guess")) {
                case .unauthorized: checked += 1
                case .tooManyRequests(let answer): throttled = answer
                default: Issue.record("unexpected answer to a wrong password")
                }
            }
            #expect(checked <= 6, "\(checked) of 31 guesses were checked")
            let refusal = try #require(throttled)
            #expect(try refusal.body.json.error == "temporarily_unavailable")
            #expect(try refusal.body.json != wrong)
            // Even the right password is held back now, with the throttled answer and a wait.
            guard case .tooManyRequests(let held) = try await kit.nativeLogin(kit.form()) else {
                Issue.record("right password not held back")
                return
            }
            let wait = try #require(held.headers.retryAfter.flatMap { Int($0) })
            #expect((1...300).contains(wait))
            // Not a lockout: after the wait the owner signs in.
            time.advance(by: .seconds(wait - 1))
            guard case .tooManyRequests = try await kit.nativeLogin(kit.form()) else {
                Issue.record("let in before the wait was over")
                return
            }
            time.advance(by: .seconds(1))
            #expect(try await kit.nativeLogin(kit.form()).ok.body.json.redirectTo.contains("code="))
        }
    }

    @Test("PAR: request_uri works once; a client requiring PAR refuses plain requests")
    func par() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "par-app"
            try await kit.setUp { $0.requirePAR = true }
            let plain = try await kit.nativeLogin(kit.form())
            #expect(try plain.ok.body.json.redirectTo.contains("error=invalid_request"))
            var pushed = kit.form()
            pushed.username = nil
            pushed.password = nil
            let created = try await client.pushAuthorizationRequest(
                path: .init(tenant: "demo"), body: .urlEncodedForm(pushed)
            ).created.body.json
            #expect(created.requestUri.hasPrefix("urn:ietf:params:oauth:request_uri:"))
            #expect(created.expiresIn == 60)
            let viaPAR = Components.Schemas.AuthorizeForm(
                clientId: kit.clientID, requestUri: created.requestUri, username: kit.username, password: kit.password)
            let first = try await kit.nativeLogin(viaPAR).ok.body.json.redirectTo
            #expect(first.contains("code="))
            _ = try await kit.nativeLogin(viaPAR).forbidden
        }
    }

    @Test(
        "50 parallel refreshes of one token: exactly one succeeds (and the reuse revokes the family)",
        arguments: DatabaseBackend.available)
    func parallelRefresh(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let tokens = try await kit.tokens()
            let successes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        if case .ok = try await kit.refresh(tokens.issuedRefreshToken) {
                            return true
                        } else {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(successes == 1)
        }
    }
}

@Suite("Introspection")
struct IntrospectionTests {
    @Test("confidential clients introspect; inactive tokens answer active:false only; public clients are refused")
    func introspect() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let secret = ClientSecret.generate()
            try await kit.store.addClient(
                OAuthClient(
                    tenantID: "demo", clientID: "rs", confidential: true, redirectURIs: ["https://rs.example/cb"]),
                secretHash: secret.hash)
            let tokens = try await kit.tokens()
            let active = try await client.introspectToken(
                path: .init(tenant: "demo"),
                body: .urlEncodedForm(.init(token: tokens.accessToken, clientId: "rs", clientSecret: secret.secret))
            ).ok.body.json
            #expect(active.active)
            #expect(active.clientId == kit.clientID)
            let inactive = try await client.introspectToken(
                path: .init(tenant: "demo"),
                body: .urlEncodedForm(.init(token: "garbage", clientId: "rs", clientSecret: secret.secret))
            ).ok.body.json
            #expect(inactive == .init(active: false))
            _ = try await client.introspectToken(
                path: .init(tenant: "demo"),
                body: .urlEncodedForm(.init(token: tokens.accessToken, clientId: kit.clientID))
            ).unauthorized
            _ = try await client.introspectToken(
                path: .init(tenant: "demo"),
                body: .urlEncodedForm(.init(token: tokens.accessToken, clientId: "rs", clientSecret: "wrong"))
            ).unauthorized
        }
    }
}

@Suite("Development seed")
struct DemoSignInTests {
    @Test("development mode seeds demo-app and user demo; the password is in demo-user.txt (0600) and signs in")
    func demoSignIn() async throws {
        try await GatewayHarness.withGateway(seedDemoSignIn: true) { harness, client, port in
            let file = harness.folder.appendingPathComponent("demo-user.txt").path
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let password = try #require(text.split(separator: "\n").first { $0.hasPrefix("password: ") }).dropFirst(
                "password: ".count)
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = DemoAuth.clientID
            kit.redirectURI = "http://127.0.0.1:8765/callback"
            kit.username = DemoAuth.username
            kit.password = String(password)
            let tokens = try await kit.tokens()
            #expect(try jwtClaims(tokens.issuedIDToken)["preferred_username"] == "demo")
        }
    }
}

@Suite("Raw HTTP details a browser sees")
struct OAuthRawHTTPTests {
    @Test("Location, Content-Security-Policy and ETag go out unencoded (browsers follow the redirect)")
    func rawHeaders() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let base = "http://127.0.0.1:\(port)/t/demo"
            let query =
                "response_type=code&client_id=\(kit.clientID)&redirect_uri=http%3A%2F%2F127.0.0.1%3A9999%2Fcallback&code_challenge_method=plain&state=abc"
            let redirect = try await TestHTTP.noRedirects.execute(
                HTTPClientRequest(url: "\(base)/oauth2/authorize?\(query)"), timeout: .seconds(10))
            #expect(redirect.status.code == 302)
            let location = try #require(redirect.headers.first(name: "Location"))
            #expect(location.hasPrefix("http://127.0.0.1:9999/callback?error=invalid_request&"))
            #expect(URLComponents(string: location)?.queryItems?.first { $0.name == "iss" }?.value == "\(base)")
            let page = try await TestHTTP.noRedirects.execute(
                HTTPClientRequest(
                    url:
                        "\(base)/oauth2/authorize?\(query.replacingOccurrences(of: "plain", with: "S256"))&code_challenge=\(OAuthTestKit.challenge)"
                ), timeout: .seconds(10))
            #expect(page.status.code == 200)
            #expect(page.headers.first(name: "Content-Security-Policy")?.hasPrefix("default-src 'none';") == true)
            #expect(page.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
            #expect(page.headers.first(name: "Set-Cookie")?.contains("; Path=/; ") == true)
            let loggedOut = try await RawHTTP.send(.GET, "\(base)/oauth2/logout")
            #expect(loggedOut.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
            let host = try await TestHTTP.noRedirects.execute(
                HTTPClientRequest(url: "\(base)/v1/host-config"), timeout: .seconds(10))
            #expect(host.headers.first(name: "ETag") == "\"cfg-1\"")
        }
    }

    @Test("header values are validated and compared as sent, never percent-decoded first")
    func headersAsSent() async throws {
        try await GatewayHarness.withGateway(useRedis: false) { _, _, port in
            let base = "http://127.0.0.1:\(port)/t/demo"
            #expect(
                try await RawHTTP.send(.GET, "\(base)/v1/host-config", headers: [("If-None-Match", "\"cfg-1\"")]).status
                    == 304)
            #expect(
                try await RawHTTP.send(.GET, "\(base)/v1/host-config", headers: [("If-None-Match", "%22cfg-1%22")])
                    .status == 200)
            let bundle = try await RawHTTP.send(.GET, "\(base)/v1/localizations/en")
            let etag = try #require(bundle.headers.first(name: "ETag"))
            #expect(
                try await RawHTTP.send(.GET, "\(base)/v1/localizations/en", headers: [("If-None-Match", etag)]).status
                    == 304)
            let encoded = etag.replacingOccurrences(of: "\"", with: "%22")
            #expect(
                try await RawHTTP.send(.GET, "\(base)/v1/localizations/en", headers: [("If-None-Match", encoded)])
                    .status == 200)
            // 3,001 characters as sent: over the 1,000 allowed (percent-decoding them first
            // fails, and the value used to pass as absent).
            let long = "%" + String(repeating: "z", count: 3000)
            let refused = try await RawHTTP.send(
                .GET, "\(base)/v1/localizations/auto", headers: [("Accept-Language", long)])
            #expect(refused.status == 400, "\(refused.status) \(refused.body)")
        }
    }
}

@Suite("Signing-key rotation")
struct KeyRotationTests {
    @Test(
        "after a rotation JWKS publishes both keys, new tokens use the new kid, tokens in flight still verify",
        arguments: DatabaseBackend.available)
    func rotation(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let before = try await kit.tokens()
            let oldKid = try jwtHeader(before.accessToken)["kid"]?.stringValue
            // What `gatewayctl keys rotate` does, through an operator store on the same file.
            let operatorAuth = harness.operatorStores.auth
            let newKey = try SigningKey.generate(tenantID: "demo")
            try await operatorAuth.addSigningKey(newKey)
            // One ES256 and one RS256 key before; the new ES256 key joins them.
            #expect(try await eventually(within: .seconds(10)) {
                try await client.getJWKS(path: .init(tenant: "demo")).ok.body.json.keys.count == 3
            })
            let after = try await kit.tokens()
            #expect(try jwtHeader(after.accessToken)["kid"]?.stringValue == newKey.kid)
            #expect(oldKid != newKey.kid)
            #expect(try await kit.me(authorization: "Bearer \(before.accessToken)").status == 200)
            #expect(try await kit.me(authorization: "Bearer \(after.accessToken)").status == 200)
        }
    }
}
