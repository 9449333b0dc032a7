import AsyncHTTPClient
import Foundation
@testable import GatewayCore
@testable import GatewaySQLite
import Testing

/// Issue 28, item 4: the sign-in form's decisions in GatewayCore, without HTTP — the CSRF
/// token's binding to the browser, the password and code steps, native callers, exits.
@Suite("Browser sign-in flow")
struct BrowserSignInTests {
    static let issuer = "https://gw.example/t/acme"
    static let redirect = "https://app.example/callback"

    struct Fixture {
        let folder: TemporaryFolder
        let flow: BrowserSignIn
        let store: SQLiteAuthStore

        init() async throws {
            folder = try TemporaryFolder()
            let tenants = try Fixtures.store(folder)
            _ = try await tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
            store = SQLiteAuthStore(tenants: tenants)
            let cache = MemoryCache()
            let auth = AuthorizationServer(store: store, cache: cache, hasher: PasswordHasher(logN: 10), memo: nil)
            let federation = Federation(
                store: store, client: HTTPClient.shared, cache: cache, guards: UpstreamGuards(), auth: auth)
            flow = BrowserSignIn(auth: auth, federation: federation.signIn, csrf: CSRFTokens(masterKey: .generate()))
            // The tenant's own app: no consent page (ConsentTests covers third parties).
            var app = OAuthClient(tenantID: "acme", clientID: "app", redirectURIs: [BrowserSignInTests.redirect])
            app.firstParty = true
            try await store.addClient(app, secretHash: nil)
            try await store.addUser(
                LocalUser(
                    tenantID: "acme", username: "alice", subject: "user-1",
                    passwordHash: try PasswordHasher(logN: 10).hash("a long password")))
        }

        func request(clientID: String = "app") -> AuthorizationRequest {
            AuthorizationRequest(
                responseType: "code", clientID: clientID, redirectURI: BrowserSignInTests.redirect, scope: "openid",
                state: "st-1", codeChallenge: PKCE.challenge(for: String(repeating: "v", count: 43)),
                codeChallengeMethod: "S256", loginHint: "alice")
        }

        /// The form's page for a browser with cookie `browser`.
        func form(browser: String) async throws -> BrowserSignIn.Page {
            let opening = try await flow.open(
                request(), tenantID: "acme", browser: browser, idpHint: nil, callbackURL: "unused",
                issuer: BrowserSignInTests.issuer)
            guard case .form(let page) = opening else { throw Unexpected(opening) }
            return page
        }

        func submit(
            _ poster: BrowserSignIn.Poster, password: String, authSession: String? = nil, otp: String? = nil
        ) async throws -> BrowserSignIn.Step {
            try await flow.submit(
                request(), tenantID: "acme", poster: poster,
                fields: .init(username: "alice", password: password, authSession: authSession, otp: otp),
                address: "192.0.2.1", issuer: BrowserSignInTests.issuer)
        }
    }

    struct Unexpected: Error {
        init(_ value: Any) { description = "\(value)" }
        let description: String
    }

    @Test(
        "the form is bound to its browser: another cookie or none ends on the expired page; the right password redirects with a code"
    )
    func csrfBinding() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        let page = try await fx.form(browser: "browser-one")
        #expect(page.username == "alice" && page.notice == nil && page.redirectURI == Self.redirect)
        let expired = BrowserSignIn.Step.exit(.errorPage(key: "login.error.expired"))
        #expect(try await fx.submit(.browser(cookie: nil, csrfToken: page.csrf), password: "a long password") == expired)
        #expect(
            try await fx.submit(.browser(cookie: "browser-two", csrfToken: page.csrf), password: "a long password")
                == expired)
        guard
            case .exit(.redirect(let location)) = try await fx.submit(
                .browser(cookie: "browser-one", csrfToken: page.csrf), password: "a long password")
        else {
            Issue.record("no redirect")
            return
        }
        #expect(location.hasPrefix(Self.redirect + "?code=") && location.contains("state=st-1"))
    }

    @Test(
        "a wrong password shows the form again to a browser (same cookie, new token) and a notice alone to a native app"
    )
    func wrongPassword() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        let page = try await fx.form(browser: "browser-one")
        guard
            case .form(let again) = try await fx.submit(
                .browser(cookie: "browser-one", csrfToken: page.csrf), password: "wrong password")
        else {
            Issue.record("no form again")
            return
        }
        #expect(again.notice == .wrongCredentials && again.browser == "browser-one" && again.username == "alice")
        #expect(try await fx.submit(.native, password: "wrong password") == .refused(.wrongCredentials))
    }

    @Test(
        "a user with a second factor gets the code page in a browser (a wrong code keeps it, with a notice) and is sent to the challenge endpoint as a native app"
    )
    func secondFactor() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        var user = try #require(try await fx.store.user(tenantID: "acme", username: "alice"))
        user.totpSecret = SecretValue(TOTP.newSecret())
        try await fx.store.updateUser(user)
        #expect(try await fx.submit(.native, password: "a long password") == .secondFactorRequired)

        let page = try await fx.form(browser: "browser-one")
        let browser = BrowserSignIn.Poster.browser(cookie: "browser-one", csrfToken: page.csrf)
        guard case .codePage(let codePage, let authSession) = try await fx.submit(browser, password: "a long password")
        else {
            Issue.record("no code page")
            return
        }
        #expect(codePage.notice == nil)
        guard
            case .codePage(let refused, authSession) = try await fx.submit(
                browser, password: "", authSession: authSession, otp: "000000")
        else {
            Issue.record("a wrong code did not keep the code page")
            return
        }
        #expect(refused.notice == .wrongCode)
        // Another browser cannot continue the session.
        let other = try await fx.form(browser: "browser-two")
        #expect(
            try await fx.submit(
                .browser(cookie: "browser-two", csrfToken: other.csrf), password: "", authSession: authSession,
                otp: "000000") == .exit(.errorPage(key: "login.error.session")))
    }

    @Test("an unknown client opens on an error page, never a redirect")
    func unknownClient() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        let opening = try await fx.flow.open(
            fx.request(clientID: "nobody"), tenantID: "acme", browser: "browser-one", idpHint: nil,
            callbackURL: "unused", issuer: Self.issuer)
        #expect(opening == .exit(.errorPage(key: AuthorizationPageError.unknownClient.key)))
    }
}
