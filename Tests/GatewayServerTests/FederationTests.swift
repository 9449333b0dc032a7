import AsyncHTTPClient
import Foundation
import GatewayCore
import NIOCore
import Testing

/// Issue 16 end to end on one real gateway: tenant `corp` is a real OpenID Provider (the
/// gateway's own authorization server), tenant `shop` signs its users in through it and
/// trusts its access tokens. Every step goes over real sockets: discovery, the JWKS, the code
/// redemption and the browser's redirects (cookies carried by hand).
@Suite("Federation: upstream sign-in, trusted issuers, identity links")
struct FederationTests {
    static let verifier = OAuthTestKit.verifier
    static let challenge = OAuthTestKit.challenge

    /// Two tenants, `corp` (the provider, with user carol and the gateway's client there) and
    /// `shop` (with provider alias `corp` and a public app client).
    struct World {
        let harness: GatewayHarness
        let port: Int
        let carol = "carol-" + UUID().uuidString.prefix(8).lowercased()
        let password = "correct horse battery"
        var base: String { "http://127.0.0.1:\(port)" }
        var corpIssuer: String { base + "/t/corp" }
        var shopIssuer: String { base + "/t/shop" }
        var store: any AuthStore { harness.bootstrap.authStore }

        func setUp(providerIssuer: String? = nil, linkByEmail: Bool = false) async throws {
            for id in ["corp", "shop", "other"] where harness.bootstrap.services.directory.tenant(id) == nil {
                try await harness.createTenant(Tenant(id: id, displayName: id.capitalized), signIn: false)
            }
            let secret = ClientSecret.generate()
            try await store.addClient(
                OAuthClient(
                    tenantID: "corp", clientID: "shop-gw", confidential: true,
                    redirectURIs: [shopIssuer + "/oauth2/idp/callback"]), secretHash: secret.hash)
            // Each tenant's own app is first-party: it asks no consent.
            var corpApp = OAuthClient(tenantID: "corp", clientID: "corp-app", redirectURIs: ["com.example.corp:/cb"])
            corpApp.firstParty = true
            try await store.addClient(corpApp, secretHash: nil)
            try await store.addUser(
                LocalUser(
                    tenantID: "corp", username: carol, name: "Carol", email: "carol@example.test",
                    passwordHash: try PasswordHasher(logN: 12).hash(password)))
            // The shop's gateway is a third party at corp: carol allowed it once.
            try await store.grant(
                Set(APIScope.identity), tenantID: "corp", subject: try await carolAtCorp().subject, clientID: "shop-gw",
                at: Date())
            var shopApp = OAuthClient(tenantID: "shop", clientID: "shop-app", redirectURIs: ["com.example.shop:/cb"])
            shopApp.firstParty = true
            try await store.addClient(shopApp, secretHash: nil)
            try await store.addIdentityProvider(
                IdentityProvider(
                    tenantID: "shop", alias: "corp", displayName: "Corp SSO", issuer: providerIssuer ?? corpIssuer,
                    clientID: "shop-gw", clientSecret: SecretValue(secret.secret), linkByVerifiedEmail: linkByEmail))
        }

        /// `GET` without following redirects; cookies as given.
        func get(
            _ url: String, cookie: String? = nil
        ) async throws -> (status: Int, location: String?, setCookie: String?, body: String) {
            var request = HTTPClientRequest(url: url)
            if let cookie { request.headers.add(name: "Cookie", value: cookie) }
            let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (
                Int(response.status.code), response.headers.first(name: "Location"),
                response.headers.first(name: "Set-Cookie"), String(buffer: body)
            )
        }

        func postForm(
            _ url: String, _ form: [(String, String)], json: Bool = true
        ) async throws -> (status: Int, body: [String: JSONValue]) {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            if json { request.headers.add(name: "Accept", value: "application/json") }
            request.body = .bytes(
                ByteBuffer(
                    string: form.map {
                        "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                    }.joined(separator: "&")))
            let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), (try? JSONValue.decode(Data(buffer: body)).objectValue) ?? [:])
        }

        /// A browser's form post (`Accept: text/html`) with `cookie`, without following redirects.
        func postPage(
            _ url: String, _ form: [(String, String)], cookie: String
        ) async throws -> (status: Int, location: String?, body: String) {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.headers.add(name: "Accept", value: "text/html")
            request.headers.add(name: "Cookie", value: cookie)
            request.body = .bytes(
                ByteBuffer(
                    string: form.map {
                        "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                    }.joined(separator: "&")))
            let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), response.headers.first(name: "Location"), String(buffer: body))
        }

        /// The shop app's authorization URL (optionally naming the provider).
        func shopAuthorize(idpHint: String? = "corp", state: String = "shop-state") -> String {
            var url =
                "\(shopIssuer)/oauth2/authorize?response_type=code&client_id=shop-app&redirect_uri=com.example.shop:/cb&scope=openid%20profile"
                + "&state=\(state)&nonce=shop-nonce&code_challenge=\(FederationTests.challenge)&code_challenge_method=S256"
            if let idpHint { url += "&idp_hint=\(idpHint)" }
            return url
        }

        /// Carol signs in at corp (natively, as the provider's page would) for the authorization
        /// URL the gateway sent the browser to; returns the provider's redirect to the callback.
        func signInAtProvider(_ upstreamURL: String, password: String? = nil) async throws -> String {
            let items = URLComponents(string: upstreamURL)?.queryItems ?? []
            var form = items.compactMap { item in item.value.map { (item.name, $0) } }
            form += [("username", carol), ("password", password ?? self.password)]
            let answer = try await postForm(corpIssuer + "/oauth2/authorize", form)
            return try #require(answer.body["redirect_to"]?.stringValue, "provider sign-in failed: \(answer)")
        }

        /// The full browser journey; returns the shop's final redirect.
        func signInThroughCorp() async throws -> String {
            let start = try await get(shopAuthorize())
            #expect(start.status == 302)
            let upstream = try #require(start.location)
            #expect(upstream.hasPrefix(corpIssuer + "/oauth2/authorize?"))
            let cookie = try #require(start.setCookie?.split(separator: ";").first.map(String.init))
            #expect(start.setCookie?.contains("SameSite=Lax") == true)
            let callback = try await signInAtProvider(upstream)
            #expect(callback.hasPrefix(shopIssuer + "/oauth2/idp/callback?"))
            let back = try await get(callback, cookie: cookie)
            #expect(back.status == 302, "callback answered \(back.status): \(back.body)")
            return try #require(back.location)
        }

        func shopTokens(_ redirect: String) async throws -> [String: JSONValue] {
            let items = URLComponents(string: redirect)?.queryItems ?? []
            #expect(items.first { $0.name == "state" }?.value == "shop-state")
            #expect(items.first { $0.name == "iss" }?.value == shopIssuer)
            let code = try #require(items.first { $0.name == "code" }?.value, "no code in \(redirect)")
            let answer = try await postForm(
                shopIssuer + "/oauth2/token",
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "com.example.shop:/cb"),
                    ("client_id", "shop-app"), ("code_verifier", FederationTests.verifier),
                ])
            #expect(answer.status == 200, "token exchange: \(answer)")
            return answer.body
        }

        /// A corp access token for carol (corp's own app).
        func corpAccessToken() async throws -> String {
            let url =
                "\(corpIssuer)/oauth2/authorize?response_type=code&client_id=corp-app&redirect_uri=com.example.corp:/cb&scope=openid%20profile&state=s&nonce=n"
                + "&code_challenge=\(FederationTests.challenge)&code_challenge_method=S256"
            let redirect = try await signInAtProvider(url)
            let code = try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "code" }?.value)
            let answer = try await postForm(
                corpIssuer + "/oauth2/token",
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "com.example.corp:/cb"),
                    ("client_id", "corp-app"), ("code_verifier", FederationTests.verifier),
                ])
            return try #require(answer.body["access_token"]?.stringValue)
        }

        func carolAtCorp() async throws -> LocalUser {
            try #require(try await store.user(tenantID: "corp", username: carol))
        }
    }

    @Test func signInThroughAnUpstreamProviderLinksOneLocalUser() async throws {
        try await GatewayHarness.withGateway { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            // The sign-in page offers the provider.
            let page = try await world.get(world.shopAuthorize(idpHint: nil))
            #expect(page.status == 200)
            #expect(page.body.contains("Continue with Corp SSO"))
            #expect(page.body.contains("idp_hint=corp"))

            let tokens = try await world.shopTokens(try await world.signInThroughCorp())
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let subject = try #require(try jwtClaims(idToken)["sub"]?.stringValue)
            let carol = try await world.carolAtCorp()
            #expect(subject != carol.subject, "the shop issues its own subject")
            let link = try #require(
                try await world.store.identityLink(
                    tenantID: "shop", issuer: world.corpIssuer, externalSubject: carol.subject))
            #expect(link.subject == subject)
            let local = try #require(try await world.store.user(tenantID: "shop", subject: subject))
            #expect(local.name == "Carol")
            #expect(local.passwordHash == IdentityLinker.noPassword)
            // The shop's own access token works on the shop's API.
            let access = try #require(tokens["access_token"]?.stringValue)
            let me = try await world.get(world.shopIssuer + "/oauth2/userinfo", cookie: nil)
            #expect(me.status == 401)
            var request = HTTPClientRequest(url: world.shopIssuer + "/oauth2/userinfo")
            request.headers.add(name: "Authorization", value: "Bearer \(access)")
            #expect(try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10)).status.code == 200)

            // A second sign-in finds the link: same local user, no new one.
            let usersBefore = try await world.store.users(tenantID: "shop").count
            let again = try await world.shopTokens(try await world.signInThroughCorp())
            #expect(try jwtClaims(try #require(again["id_token"]?.stringValue))["sub"]?.stringValue == subject)
            #expect(try await world.store.users(tenantID: "shop").count == usersBefore)
        }
    }

    @Test("the sign-in form shown again after a wrong password still offers the identity providers")
    func theFormAfterAFailedPasswordKeepsTheProviderLinks() async throws {
        try await GatewayHarness.withGateway { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            let authorize = world.shopAuthorize(idpHint: nil)
            let page = try await world.get(authorize)
            let cookie = try #require(page.setCookie?.split(separator: ";").first.map(String.init))
            let csrf = try AuthorizationChallengeTests.hidden("csrf_token", in: page.body)
            var form = (URLComponents(string: authorize)?.queryItems ?? []).compactMap { item in
                item.value.map { (item.name, $0) }
            }
            form += [("csrf_token", csrf), ("username", "nobody"), ("password", "wrong password")]
            let (status, _, again) = try await world.postPage(world.shopIssuer + "/oauth2/authorize", form, cookie: cookie)
            #expect(status == 401)
            #expect(again.contains("role=\"alert\""))
            #expect(again.contains("Continue with Corp SSO") && again.contains("idp_hint=corp"), "\(again)")
        }
    }

    @Test("a third-party client of the shop: back from the provider, the consent page first; allowed, the code")
    func aThirdPartyClientAsksConsentAfterTheProvider() async throws {
        try await GatewayHarness.withGateway { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            try await world.store.addClient(
                OAuthClient(tenantID: "shop", clientID: "partner", redirectURIs: ["com.example.partner:/cb"]),
                secretHash: nil)
            let authorize = world.shopAuthorize().replacingOccurrences(of: "shop-app", with: "partner")
                .replacingOccurrences(of: "com.example.shop:/cb", with: "com.example.partner:/cb")
            let start = try await world.get(authorize)
            let federation = try #require(start.setCookie?.split(separator: ";").first.map(String.init))
            let callback = try await world.signInAtProvider(try #require(start.location))
            let back = try await world.get(callback, cookie: federation)
            #expect(back.status == 200, "callback answered \(back.status): \(back.location ?? "")")
            #expect(back.body.contains("Allow partner?"))
            let csrfCookie = try #require(back.setCookie?.split(separator: ";").first.map(String.init))
            let form = [
                ("csrf_token", try AuthorizationChallengeTests.hidden("csrf_token", in: back.body)),
                ("consent_session", try AuthorizationChallengeTests.hidden("consent_session", in: back.body)),
                ("consent", "allow"),
            ]
            let answer = try await world.postPage(world.shopIssuer + "/oauth2/authorize", form, cookie: csrfCookie)
            #expect(answer.status == 303)
            let location = try #require(answer.location)
            #expect(location.hasPrefix("com.example.partner:/cb?") && location.contains("code="))
            #expect(location.contains("state=shop-state"))
        }
    }

    @Test func theCallbackRefusesAnotherBrowserAndAReplayedState() async throws {
        try await GatewayHarness.withGateway { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            let start = try await world.get(world.shopAuthorize())
            let cookie = try #require(start.setCookie?.split(separator: ";").first.map(String.init))
            let callback = try await world.signInAtProvider(try #require(start.location))
            // Another browser (no cookie, or another value): an error page, no redirect.
            let stranger = try await world.get(callback, cookie: "gw-fed=AAAAAAAAAAAAAAAAAAAAAA")
            #expect(stranger.status == 400)
            #expect(stranger.location == nil)
            // The state was taken by that attempt: the right browser cannot replay it either.
            let replay = try await world.get(callback, cookie: cookie)
            #expect(replay.status == 400)
            // An unknown state.
            #expect(
                try await world.get(world.shopIssuer + "/oauth2/idp/callback?state=nope&code=x", cookie: cookie).status
                    == 400)
        }
    }

    @Test func anUpstreamErrorAndAnUnreachableProviderGoBackToTheClient() async throws {
        try await GatewayHarness.withGateway(upstreamBudget: .seconds(2)) { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            // The provider sends the user back with access_denied.
            let start = try await world.get(world.shopAuthorize())
            let cookie = try #require(start.setCookie?.split(separator: ";").first.map(String.init))
            let upstreamURL = try #require(start.location)
            let state = try #require(
                URLComponents(string: upstreamURL)?.queryItems?.first { $0.name == "state" }?.value)
            let denied = try await world.get(
                world.shopIssuer + "/oauth2/idp/callback?state=\(state)&error=access_denied&error_description=no",
                cookie: cookie)
            #expect(denied.status == 302)
            let deniedItems = URLComponents(string: try #require(denied.location))?.queryItems ?? []
            #expect(denied.location?.hasPrefix("com.example.shop:/cb?") == true)
            #expect(deniedItems.first { $0.name == "error" }?.value == "access_denied")
            #expect(deniedItems.first { $0.name == "state" }?.value == "shop-state")

            // A provider whose issuer does not answer: temporarily_unavailable on the client's redirect, never a 500.
            try await world.store.addIdentityProvider(
                IdentityProvider(tenantID: "shop", alias: "down", issuer: "http://127.0.0.1:9/t/none", clientID: "x"))
            let down = try await world.get(world.shopAuthorize(idpHint: "down"))
            #expect(down.status == 302)
            let downItems = URLComponents(string: try #require(down.location))?.queryItems ?? []
            #expect(down.location?.hasPrefix("com.example.shop:/cb?") == true)
            #expect(downItems.first { $0.name == "error" }?.value == "temporarily_unavailable")
        }
    }

    @Test func aTrustedIssuersTokenWorksOnlyWhereItIsTrusted() async throws {
        // The trust lists and the verified-token memo run on the gateway's clock: the test
        // moves it past their lifetimes instead of waiting for them.
        let time = ManualClock(Date())
        try await GatewayHarness.withGateway(clock: time.clock) { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            let corpToken = try await world.corpAccessToken()
            @Sendable func userinfo(_ tenant: String) async throws -> (Int, [String: JSONValue]) {
                var request = HTTPClientRequest(url: "\(world.base)/t/\(tenant)/oauth2/userinfo")
                request.headers.add(name: "Authorization", value: "Bearer \(corpToken)")
                let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
                let body = try await response.body.collect(upTo: 1 << 20)
                return (Int(response.status.code), (try? JSONValue.decode(Data(buffer: body)).objectValue) ?? [:])
            }
            // Not trusted yet: refused.
            #expect(try await userinfo("shop").0 == 401)
            try await world.store.trustIssuer(
                TrustedIssuer(
                    tenantID: "shop", issuer: world.corpIssuer,
                    audience: TokenService.audience(issuer: world.corpIssuer)))
            // The trusted-issuer list is re-read every 5 s: not before, then at once.
            time.advance(by: TrustedTokenVerifier.listLifetime - .seconds(1))
            #expect(try await userinfo("shop").0 == 401)
            time.advance(by: .seconds(1))
            #expect(try await userinfo("shop").0 == 200)
            let (_, info) = try await userinfo("shop")
            let carol = try await world.carolAtCorp()
            let link = try #require(
                try await world.store.identityLink(
                    tenantID: "shop", issuer: world.corpIssuer, externalSubject: carol.subject))
            #expect(info["sub"]?.stringValue == link.subject)
            // The access token names no one: the new local user's name came from corp's UserInfo.
            #expect(try jwtClaims(corpToken)["name"] == nil)
            #expect(try await world.store.user(tenantID: "shop", subject: link.subject)?.name == "Carol")
            // Erasing that user (or unlinking it) reaches a token already memoised within 5 s: the
            // same corp token then names a new local user, not the erased one.
            _ = try await world.store.eraseUser(tenantID: "shop", subject: link.subject, now: Date())
            time.advance(by: .seconds(TrustedTokenVerifier.memoLifetime))
            let (status, relinked) = try await userinfo("shop")
            #expect(
                status == 200 && relinked["sub"]?.stringValue != link.subject,
                "the erased user's subject was still served for a trusted token")
            // Tenant `other` does not trust corp: the same token is refused there.
            #expect(try await userinfo("other").0 == 401)
            // A trust for another audience refuses it too.
            try await world.store.trustIssuer(
                TrustedIssuer(tenantID: "other", issuer: world.corpIssuer, audience: "https://elsewhere.example/v1"))
            time.advance(by: TrustedTokenVerifier.listLifetime)
            #expect(try await userinfo("other").0 == 401)
        }
    }

    @Test func aTrustedIssuersTokenIsExchangedForTheGatewaysTokens() async throws {
        try await GatewayHarness.withGateway { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            // Even the tenant's own host app gets no sign-in-request approval from an exchange.
            var native = OAuthClient(
                tenantID: "shop", clientID: "shop-native", redirectURIs: ["com.example.shop:/native"])
            native.grantTypes = ["authorization_code", "refresh_token", TokenExchange.grantType]
            native.firstParty = true
            native.defaultScopes = OAuthClient.newDefaultScopes(firstParty: true)
            try await world.store.addClient(native, secretHash: nil)
            let corpToken = try await world.corpAccessToken()
            @Sendable func exchange(
                _ clientID: String, tenant: String = "shop", scope: String = "openid profile"
            ) async throws -> (status: Int, body: [String: JSONValue]) {
                try await world.postForm(
                    "\(world.base)/t/\(tenant)/oauth2/token",
                    [
                        ("grant_type", TokenExchange.grantType), ("client_id", clientID), ("subject_token", corpToken),
                        ("subject_token_type", TokenExchange.accessTokenType), ("scope", scope),
                    ])
            }
            // Not trusted yet; then a client without the grant; then the real exchange.
            #expect(try await exchange("shop-native").body["error"] == "invalid_grant")
            try await world.store.trustIssuer(
                TrustedIssuer(
                    tenantID: "shop", issuer: world.corpIssuer,
                    audience: TokenService.audience(issuer: world.corpIssuer)))
            #expect(try await exchange("shop-app").body["error"] == "unauthorized_client")
            let accepted = await eventually(within: .seconds(10)) { (try? await exchange("shop-native").status) == 200 }
            #expect(accepted)
            let answer = try await exchange("shop-native")
            #expect(answer.body["issued_token_type"]?.stringValue == TokenExchange.accessTokenType)
            #expect(
                answer.body["scope"]?.stringValue == "openid profile email host miniapp-data messages devices",
                "\(answer.body)")
            var approvals = HTTPClientRequest(url: world.shopIssuer + "/v1/me/sign-in-requests")
            approvals.headers.add(
                name: "Authorization", value: "Bearer " + (answer.body["access_token"]?.stringValue ?? ""))
            let refused = try await TestHTTP.noRedirects.execute(approvals, timeout: .seconds(10))
            #expect(refused.status.code == 403)
            #expect(
                refused.headers.first(name: "WWW-Authenticate")
                    == #"Bearer error="insufficient_scope", scope="sign-in-requests""#)
            // Issue 62's contract-driven check for this kind: the exchanged token opens exactly
            // the operations of the scopes it was granted.
            let granted = Set((answer.body["scope"]?.stringValue ?? "").split(separator: " ").map(String.init))
            try await ScopeEnforcementTests.expectDoors(
                try #require(answer.body["access_token"]?.stringValue), scopes: granted, kind: "token exchange",
                base: world.base, tenant: "shop")
            let asked = try await exchange("shop-native", scope: "openid sign-in-requests")
            #expect(asked.status == 400 && asked.body["error"] == "invalid_scope", "\(asked.body)")
            let refresh = try #require(answer.body["refresh_token"]?.stringValue)
            let idToken = try #require(answer.body["id_token"]?.stringValue)
            let carol = try await world.carolAtCorp()
            let link = try #require(
                try await world.store.identityLink(
                    tenantID: "shop", issuer: world.corpIssuer, externalSubject: carol.subject))
            #expect(try jwtClaims(idToken)["sub"]?.stringValue == link.subject)
            #expect(
                try jwtClaims(try #require(answer.body["access_token"]?.stringValue))["iss"]?.stringValue
                    == world.shopIssuer)
            // The gateway's refresh token rotates like any other.
            let refreshed = try await world.postForm(
                world.shopIssuer + "/oauth2/token",
                [("grant_type", "refresh_token"), ("client_id", "shop-native"), ("refresh_token", refresh)])
            #expect(refreshed.status == 200)
            // Discovery advertises the grant.
            let discovery = try await world.get(world.shopIssuer + "/.well-known/openid-configuration")
            #expect(discovery.body.contains(TokenExchange.grantType))
        }
    }

    @Test func hintsAndAutoRedirectGoStraightToTheProvider() async throws {
        try await GatewayHarness.withGateway { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            // Keycloak's parameter name works too.
            let keycloak = try await world.get(world.shopAuthorize(idpHint: nil) + "&kc_idp_hint=corp")
            #expect(keycloak.status == 302)
            #expect(keycloak.location?.hasPrefix(world.corpIssuer + "/oauth2/authorize?") == true)
            // An unknown alias shows the form.
            #expect(try await world.get(world.shopAuthorize(idpHint: "nope")).status == 200)
            // A provider marked auto-redirect: no form at all.
            try await world.store.addIdentityProvider(
                IdentityProvider(
                    tenantID: "shop", alias: "only", issuer: world.corpIssuer, clientID: "shop-gw", autoRedirect: true))
            let straight = try await world.get(world.shopAuthorize(idpHint: nil))
            #expect(straight.status == 302)
            let items = URLComponents(string: try #require(straight.location))?.queryItems ?? []
            #expect(items.first { $0.name == "client_id" }?.value == "shop-gw")
            #expect(items.first { $0.name == "code_challenge_method" }?.value == "S256")
            #expect(items.first { $0.name == "redirect_uri" }?.value == world.shopIssuer + "/oauth2/idp/callback")
            #expect(items.first { $0.name == "nonce" }?.value?.count ?? 0 >= 43)
        }
    }

    @Test func aProviderThatIsDownOpensItsBreaker() async throws {
        try await GatewayHarness.withGateway(upstreamBudget: .seconds(2)) { harness, _, port in
            let world = World(harness: harness, port: port)
            try await world.setUp()
            let closed = try freeTCPPort()
            try await world.store.addIdentityProvider(
                IdentityProvider(tenantID: "shop", alias: "down", issuer: "http://127.0.0.1:\(closed)", clientID: "x"))
            // Enough failed sign-ins at once to trip the breaker (10 calls, half failing).
            let errors = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let answer = try await world.get(world.shopAuthorize(idpHint: "down"))
                        return URLComponents(string: answer.location ?? "")?.queryItems?.first { $0.name == "error" }?
                            .value
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(errors.allSatisfy { $0 == "temporarily_unavailable" }, "\(errors)")
            let metrics = try await world.get(world.base + "/metrics").body
            let gauge = metrics.split(separator: "\n").first {
                $0.hasPrefix("gateway_upstream_breaker_open") && $0.contains("oidc:127.0.0.1:\(closed)")
                    && $0.contains("shop")
            }
            #expect(gauge?.hasSuffix(" 1") == true || gauge?.hasSuffix(" 1.0") == true, "\(gauge ?? "no gauge")")
            // While it is open, sign-ins still go back to the client (no wait on the dead provider, no 500).
            let again = try await world.get(world.shopAuthorize(idpHint: "down"))
            #expect(again.location?.contains("error=temporarily_unavailable") == true)
        }
    }
}
