import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import Testing

@testable import GatewayServer

/// The browser's single sign-on session at a tenant (issue 63 §6), over real sockets with a
/// cookie jar: a sign-in on the hosted form leaves a session cookie; another client of the
/// tenant then signs in silently (`prompt=none`) with the first sign-in's `auth_time`, `amr`
/// and `acr`; `prompt=login`, `max_age` and a TOTP `acr_values` ask again; logout, a disabled
/// user and another tenant get nothing from it.
@Suite("Browser single sign-on session")
struct BrowserSessionTests {
    struct Browser {
        let kit: OAuthTestKit
        let jar = CookieJar()
        var client: Client { Client.browser(port: kit.port, jar: jar) }

        func authorize(
            clientID: String? = nil, prompt: String? = nil, maxAge: String? = nil, acrValues: String? = nil,
            tenant: String? = nil
        ) async throws -> Operations.GetAuthorize.Output {
            try await client.getAuthorize(
                path: .init(tenant: tenant ?? kit.tenant),
                query: .init(
                    responseType: "code", clientId: clientID ?? kit.clientID, redirectUri: kit.redirectURI,
                    scope: "openid profile", state: "st-1", nonce: "n-1", codeChallenge: OAuthTestKit.challenge,
                    codeChallengeMethod: "S256", prompt: prompt, acrValues: acrValues, maxAge: maxAge))
        }

        /// Signs in on the form; returns the code from the redirect.
        func signIn(clientID: String? = nil, acrValues: String? = nil) async throws -> String {
            let page = try await authorize(clientID: clientID, acrValues: acrValues).ok
            let html = try await String(collecting: try page.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            let csrf = try #require(
                html.firstMatch(of: /name="csrf_token" value="([^"]+)"/).map { String($0.output.1) })
            var form = kit.form(clientID: clientID)
            form.scope = "openid profile"
            form.acrValues = acrValues
            form.csrfToken = csrf
            let post = try await client.postAuthorize(
                path: .init(tenant: kit.tenant), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(form))
            let setCookie = try #require(try post.seeOther.headers.setCookie)
            #expect(setCookie.hasPrefix("gw-sso-\(kit.tenant)=") && setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("SameSite=Lax"))
            return try Self.code(try post.seeOther.headers.location)
        }

        static func code(_ location: String) throws -> String {
            try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
        }

        /// The redirect of a silent sign-in, or the form (`nil`).
        func silent(_ output: Operations.GetAuthorize.Output) throws -> String? {
            switch output {
            case .found(let found): return found.headers.location
            case .ok: return nil
            default: throw CancellationError()
            }
        }
    }

    @Test("a second client signs in silently with the first sign-in's auth_time and amr; prompt=login and max_age ask again")
    func silentSignIn() async throws {
        let clock = ManualClock(Date())
        try await GatewayHarness.withGateway(clock: clock.clock) { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "sso-one"
            try await kit.setUp()
            var other = kit
            other.clientID = "sso-two"
            try await other.setUp()
            let browser = Browser(kit: kit)

            // Without a session, prompt=none is login_required on the redirect URI.
            let cold = try #require(try browser.silent(try await browser.authorize(prompt: "none")))
            #expect(cold.contains("error=login_required") && cold.hasPrefix(kit.redirectURI))

            let first = try await kit.exchange(try await browser.signIn()).ok.body.json
            let firstClaims = try jwtClaims(first.issuedIDToken)
            #expect(firstClaims["amr"] == .array(["pwd"]))
            #expect(firstClaims["acr"] == .string(BackchannelRules.passwordACR))

            clock.advance(by: .seconds(90))
            let location = try #require(
                try browser.silent(try await browser.authorize(clientID: "sso-two", prompt: "none")))
            let tokens = try await other.exchange(try Browser.code(location)).ok.body.json
            let claims = try jwtClaims(tokens.issuedIDToken)
            #expect(claims["sub"] == firstClaims["sub"] && claims["aud"] == .string("sso-two"))
            #expect(claims["auth_time"] == firstClaims["auth_time"], "the session's sign-in, not now")
            #expect(claims["amr"] == .array(["pwd"]) && claims["sid"] != firstClaims["sid"])
            // Without prompt: silently too.
            #expect(try browser.silent(try await browser.authorize(clientID: "sso-two")) != nil)

            // A fresh sign-in asked: the form, or login_required with prompt=none.
            #expect(try browser.silent(try await browser.authorize(prompt: "login")) == nil)
            #expect(try browser.silent(try await browser.authorize(maxAge: "0")) == nil)
            #expect(try browser.silent(try await browser.authorize(maxAge: "60")) == nil, "signed in 90 s ago")
            #expect(try browser.silent(try await browser.authorize(maxAge: "3600")) != nil)
            let stale = try #require(try browser.silent(try await browser.authorize(prompt: "none", maxAge: "60")))
            #expect(stale.contains("error=login_required"))
            // The TOTP class is asked: a password session does not meet it.
            let stepUp = try await browser.authorize(prompt: "none", acrValues: BackchannelRules.totpACR)
            #expect(try #require(try browser.silent(stepUp)).contains("error=login_required"))
            // Nonsense is refused on the redirect URI.
            let mixed = try #require(try browser.silent(try await browser.authorize(prompt: "none login")))
            #expect(mixed.contains("error=invalid_request"))
            let badAge = try #require(try browser.silent(try await browser.authorize(maxAge: "soon")))
            #expect(badAge.contains("error=invalid_request"))

            // Another browser has no session.
            #expect(try Browser(kit: kit).silent(try await Browser(kit: kit).authorize(prompt: "none"))?
                .contains("error=login_required") == true)
        }
    }

    @Test("a tenant's own step-up classes: discovery lists them, the ID token names the one met, a session short of one asks again")
    func tenantStepUpClasses() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            var tenant = Tenant(id: "loa-" + UUID().uuidString.prefix(8).lowercased(), displayName: "Acme")
            tenant.journeys.stepUp = ["urn:acme:loa:1": [.password], "urn:acme:loa:2": [.password, .totp]]
            try await harness.createTenant(tenant, signIn: false)
            kit.tenant = tenant.id
            try await kit.setUp()
            let browser = Browser(kit: kit)

            let discovery = try await TestHTTP.noRedirects.execute(
                HTTPClientRequest(url: "\(kit.base)/t/\(tenant.id)/.well-known/openid-configuration"), timeout: .seconds(10))
            let metadata = try JSONValue.decode(Data(buffer: try await discovery.body.collect(upTo: 1 << 20)))
            #expect(
                metadata.objectValue?["acr_values_supported"]?.strings
                    == BackchannelRules.supportedACRValues + ["urn:acme:loa:1", "urn:acme:loa:2"])

            // A password sign-in asked for both: it meets the first class only.
            let asked = "urn:acme:loa:2 urn:acme:loa:1"
            let tokens = try await kit.exchange(try await browser.signIn(acrValues: asked)).ok.body.json
            let claims = try jwtClaims(tokens.issuedIDToken)
            #expect(claims["acr"] == .string("urn:acme:loa:1") && claims["amr"] == .array(["pwd"]))
            // The session answers the class it met silently, not the one it did not.
            let met = try #require(try browser.silent(try await browser.authorize(prompt: "none", acrValues: "urn:acme:loa:1")))
            let silent = try await kit.exchange(try Browser.code(met)).ok.body.json
            #expect(try jwtClaims(silent.issuedIDToken)["acr"] == .string("urn:acme:loa:1"))
            let short = try await browser.authorize(prompt: "none", acrValues: "urn:acme:loa:2")
            #expect(try #require(try browser.silent(short)).contains("error=login_required"))

            // A journey asked for the class names it in the ID token too.
            let first = try await JourneyEndpointTests.start(kit, acrValues: "urn:acme:loa:1").created.body.json
            _ = try await JourneyEndpointTests.step(kit, first.id, "submit", ["identifier": kit.username]).ok
            guard case .JourneyFinished(let finished) = try await JourneyEndpointTests.step(
                kit, first.id, "submit", ["password": kit.password]).ok.body.json
            else { Issue.record("the password did not finish the journey"); return }
            let journeyTokens = try await kit.exchangeWithoutRedirect(finished.authorizationCode).ok.body.json
            #expect(try jwtClaims(journeyTokens.issuedIDToken)["acr"] == .string("urn:acme:loa:1"))
        }
    }

    @Test("logout with an ID token hint ends the browser's session; a disabled user's session signs nobody in")
    func sessionsEnd() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "sso-logout"
            try await kit.setUp()
            let browser = Browser(kit: kit)
            let tokens = try await kit.exchange(try await browser.signIn()).ok.body.json
            #expect(try browser.silent(try await browser.authorize(prompt: "none"))?.contains("code=") == true)
            _ = try await browser.client.getLogout(
                path: .init(tenant: kit.tenant), query: .init(idTokenHint: tokens.issuedIDToken))
            #expect(
                try browser.silent(try await browser.authorize(prompt: "none"))?.contains("error=login_required") == true)

            _ = try await kit.exchange(try await browser.signIn()).ok
            #expect(try browser.silent(try await browser.authorize(prompt: "none"))?.contains("code=") == true)
            var user = try #require(try await kit.store.user(tenantID: kit.tenant, username: kit.username))
            user.disabled = true
            try await kit.store.updateUser(user)
            #expect(
                try browser.silent(try await browser.authorize(prompt: "none"))?.contains("error=login_required") == true)
        }
    }
}
