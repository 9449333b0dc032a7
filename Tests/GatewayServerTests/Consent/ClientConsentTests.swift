import Foundation
import GatewayAPI
import GatewayCore
import Testing

@testable import GatewayServer

/// A third-party client's consent (issue 63 §6), over real sockets with a cookie jar: the page
/// after the sign-in, allow and deny, the grant that later silent sign-ins rely on, and the
/// refusals (`consent_required`) where no page can be shown.
@Suite("Third-party consent")
struct ClientConsentTests {
    typealias Browser = BrowserSessionTests.Browser

    /// The consent page's hidden session and CSRF token, from its HTML.
    static func consentFields(_ html: String) throws -> (session: String, csrf: String) {
        let session = try #require(
            html.firstMatch(of: /name="consent_session" value="([^"]+)"/).map { String($0.output.1) })
        let csrf = try #require(html.firstMatch(of: /name="csrf_token" value="([^"]+)"/).map { String($0.output.1) })
        return (session, csrf)
    }

    /// Posts the consent page's answer.
    static func answer(
        _ browser: Browser, clientID: String, page html: String, consent: String
    ) async throws -> Operations.PostAuthorize.Output {
        let fields = try consentFields(html)
        var form = browser.kit.form(clientID: clientID)
        form.scope = "openid profile"
        form.username = nil
        form.password = nil
        form.csrfToken = fields.csrf
        form.consentSession = fields.session
        form.consent = .init(rawValue: consent)
        return try await browser.client.postAuthorize(
            path: .init(tenant: browser.kit.tenant), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
            body: .urlEncodedForm(form))
    }

    static func html(_ ok: Operations.PostAuthorize.Output.Ok) async throws -> String {
        try await String(collecting: try ok.body.textHtmlCharsetUtf8, upTo: 1 << 20)
    }

    @Test(
        "a third-party client gets the consent page after the sign-in; allow keeps the grant, so prompt=none then signs in silently"
    )
    func allowThenSilent() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "partner-" + UUID().uuidString.prefix(6).lowercased()
            try await kit.setUp { $0.firstParty = false }
            let browser = Browser(kit: kit)

            // Sign in on the form: the consent page, in the page's language, before any code.
            let form = try await browser.authorize().ok
            let formHTML = try await String(collecting: try form.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            let csrf = try #require(
                formHTML.firstMatch(of: /name="csrf_token" value="([^"]+)"/).map { String($0.output.1) })
            var post = kit.form()
            post.scope = "openid profile"
            post.csrfToken = csrf
            let signedIn = try await browser.client.postAuthorize(
                path: .init(tenant: kit.tenant), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(post))
            let consentHTML = try await Self.html(try signedIn.ok)
            #expect(consentHTML.contains("Allow \(kit.clientID)?"))
            #expect(consentHTML.contains("See your name and username"))
            #expect(consentHTML.contains("name=\"consent\" value=\"deny\""))
            // No session yet: nothing signs in silently before the answer.
            let early = try #require(try browser.silent(try await browser.authorize(prompt: "none")))
            #expect(early.contains("error=login_required"))

            let allowed = try await Self.answer(browser, clientID: kit.clientID, page: consentHTML, consent: "allow")
            let location = try allowed.seeOther.headers.location
            #expect(try allowed.seeOther.headers.setCookie?.hasPrefix("gw-sso-\(kit.tenant)=") == true)
            let tokens = try await kit.exchange(try Browser.code(location)).ok.body.json
            #expect(try jwtClaims(tokens.issuedIDToken)["amr"] == .array(["pwd"]))
            // The same page answered twice: the session was taken.
            let replay = try await Self.answer(browser, clientID: kit.clientID, page: consentHTML, consent: "allow")
            #expect(try replay.forbidden.headers.cacheControl == "no-store")

            // The grant holds: silently now, prompt=none included; prompt=consent asks again.
            #expect(try browser.silent(try await browser.authorize(prompt: "none"))?.contains("code=") == true)
            #expect(try browser.silent(try await browser.authorize()) != nil)
            let again = try await browser.authorize(prompt: "consent")
            let againHTML = try await String(collecting: try again.ok.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(againHTML.contains("consent_session"))
            let subject = try #require(try await kit.store.user(tenantID: kit.tenant, username: kit.username)).subject
            #expect(
                try await kit.store.grantedScopes(tenantID: kit.tenant, subject: subject, clientID: kit.clientID)
                    .isSuperset(of: ["openid", "profile"]))
        }
    }

    @Test(
        "deny is access_denied on the redirect URI; a session without a grant: the page, or consent_required with prompt=none; a native post: consent_required; first-party clients never ask"
    )
    func refusals() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var host = OAuthTestKit(harness: harness, client: client, port: port)
            host.clientID = "host-" + UUID().uuidString.prefix(6).lowercased()
            try await host.setUp()
            var partner = host
            partner.clientID = "partner-" + UUID().uuidString.prefix(6).lowercased()
            try await partner.setUp { $0.firstParty = false }
            let browser = Browser(kit: host)

            // The host app (first-party) signs in without a page; the browser has a session.
            _ = try await browser.signIn()

            // The partner over that session: prompt=none is consent_required, else the page.
            let none = try #require(
                try browser.silent(try await browser.authorize(clientID: partner.clientID, prompt: "none")))
            #expect(none.hasPrefix(partner.redirectURI) && none.contains("error=consent_required"))
            #expect(none.contains("state=st-1"))
            let page = try await browser.authorize(clientID: partner.clientID)
            let html = try await String(collecting: try page.ok.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            let denied = try await Self.answer(browser, clientID: partner.clientID, page: html, consent: "deny")
            let location = try denied.seeOther.headers.location
            #expect(location.hasPrefix(partner.redirectURI) && location.contains("error=access_denied"))
            #expect(!location.contains("code="))
            // Denied: nothing granted, so prompt=none is still consent_required.
            let still = try #require(
                try browser.silent(try await browser.authorize(clientID: partner.clientID, prompt: "none")))
            #expect(still.contains("error=consent_required"))

            // A page answered from another browser (its own CSRF cookie) is refused.
            let other = try await browser.authorize(clientID: partner.clientID)
            let otherHTML = try await String(collecting: try other.ok.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            let stranger = Browser(kit: host)
            _ = try await stranger.authorize(clientID: partner.clientID)
            let foreign = try await Self.answer(stranger, clientID: partner.clientID, page: otherHTML, consent: "allow")
            #expect(try foreign.forbidden.headers.cacheControl == "no-store")

            // A third party posting the password as JSON cannot show the page: consent_required.
            let native = try await partner.nativeLogin(partner.form(clientID: partner.clientID))
            let redirect = try native.ok.body.json.redirectTo
            #expect(redirect.contains("error=consent_required") && !redirect.contains("code="))
            // The host app's JSON sign-in is unaffected.
            #expect(try await host.code().isEmpty == false)
        }
    }
}
