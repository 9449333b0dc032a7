import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import GatewayAPI
@testable import GatewayCore
import GatewayServer
import Testing

/// First-party native sign-in ("OAuth 2.0 for First-Party Applications") and the TOTP
/// second factor, over real sockets against a real gateway, Redis and store.
@Suite("Authorization challenge endpoint and TOTP", .serialized)
struct AuthorizationChallengeTests {
    /// A kit whose client is first-party (unless `firstParty` is false); with `totp` the user has a second factor.
    func withKit(
        firstParty: Bool = true, totp: Bool = false,
        configure: @escaping @Sendable (inout OAuthClient) -> Void = { _ in },
        _ body: @Sendable @escaping (OAuthTestKit, String?) async throws -> Void
    ) async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "native-" + UUID().uuidString.prefix(6).lowercased()
            try await kit.setUp { $0.firstParty = firstParty; configure(&$0) }
            try await body(kit, totp ? try await kit.addSecondFactor() : nil)
        }
    }

    static func currentCode(_ secret: String?) throws -> String {
        guard let secret, let totp = TOTP(base32: secret) else { throw CancellationError() }
        return totp.code(step: TOTP.step(at: Date()))
    }

    @Test(
        "discovery and RFC 8414 metadata advertise the endpoint; a first-party app gets a code for username + password + PKCE and redeems it without redirect_uri"
    )
    func passwordOnly() async throws {
        try await withKit { kit, _ in
            let metadata = try await kit.client.getOpenIDConfiguration(path: .init(tenant: "demo")).ok.body.json
            #expect(metadata.authorizationChallengeEndpoint == kit.issuer + "/oauth2/authorize-challenge")

            let code = try await kit.challenge().ok.body.json.authorizationCode
            // A redirect_uri the authorization request never had is refused...
            #expect(
                try OAuthTestKit.errorCode(try await kit.exchange(code, redirect: kit.redirectURI)) == "invalid_grant")
            // ...and that spent the code: a fresh one, exchanged as the draft says (no redirect_uri).
            let fresh = try await kit.challenge().ok.body.json.authorizationCode
            let tokens = try await kit.exchangeWithoutRedirect(fresh).ok.body.json
            let idToken = try jwtClaims(try #require(tokens.idToken))
            #expect(idToken["nonce"]?.stringValue == "n-native")
            #expect(tokens.scope.contains("profile"))
        }
    }

    @Test(
        "refusals: not first-party, no PKCE, plain PKCE, wrong response_type, unknown scope, missing or wrong password (without saying whether the user exists), an unknown auth_session"
    )
    func refusals() async throws {
        try await withKit(firstParty: false) { kit, _ in
            let answer = try await kit.challenge()
            #expect(try kit.challengeError(answer) == "unauthorized_client 400")
        }
        try await withKit { kit, _ in
            #expect(try kit.challengeError(try await kit.challenge(codeChallenge: nil)) == "invalid_request 400")
            #expect(try kit.challengeError(try await kit.challenge(method: "plain")) == "invalid_request 400")
            #expect(
                try kit.challengeError(try await kit.challenge(responseType: "token"))
                    == "unsupported_response_type 400")
            #expect(try kit.challengeError(try await kit.challenge(scope: "openid admin")) == "invalid_scope 400")
            #expect(try kit.challengeError(try await kit.challenge(password: "")) == "invalid_request 400")
            let wrong = try await kit.challenge(password: "wrong password")
            let unknown = try await kit.challenge(username: "nobody-\(UUID().uuidString.prefix(6))")
            #expect(try kit.challengeError(wrong) == "access_denied 400")
            #expect(try kit.challengeError(unknown) == "access_denied 400")
            #expect(try wrong.badRequest.body.json.errorDescription == unknown.badRequest.body.json.errorDescription)
            #expect(
                try kit.challengeError(try await kit.challenge(authSession: "made-up", otp: "123456"))
                    == "invalid_session 400")
            #expect(try kit.challengeError(try await kit.challenge(clientID: "no-such-client")) == "invalid_client 401")
            // A body that is not a form still gets RFC 6749 JSON, never a problem document.
            var raw = HTTPClientRequest(url: kit.issuer + "/oauth2/authorize-challenge")
            raw.method = .POST
            raw.headers.add(name: "Content-Type", value: "application/json")
            raw.body = .bytes(ByteBuffer(string: "{}"))
            let answer = try await TestHTTP.noRedirects.execute(raw, timeout: .seconds(10))
            #expect(
                answer.status.code == 415
                    && answer.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true,
                "\(answer.status) \(answer.headers)")
            #expect(
                String(buffer: try await answer.body.collect(upTo: 1 << 16)).contains("\"error\":\"invalid_request\""))
        }
    }

    @Test(
        "the same sign-in throttle as the form: past the free attempts a wrong password closes the pair, and the next attempt is 429 with Retry-After, unchecked"
    )
    func throttled() async throws {
        try await withKit { kit, _ in
            for _ in 0..<5 {
                #expect(
                    try kit.challengeError(try await kit.challenge(password: "wrong password")) == "access_denied 400")
            }
            // The right password now is held back too: the pair is closed, nothing is checked.
            let held = try await kit.challenge()
            let answer = try held.tooManyRequests
            #expect(Int(answer.headers.retryAfter ?? "") ?? 0 >= 1)
            #expect(try answer.body.json.error == "temporarily_unavailable")
        }
    }

    @Test(
        "a user with TOTP: the password gets insufficient_authorization with otp_required and an auth_session; a wrong code is refused, the right one gives a code; a used code cannot be replayed"
    )
    func secondFactor() async throws {
        try await withKit(totp: true) { kit, secret in
            let first = try await kit.challenge().unauthorized.body.json
            #expect(first.error == "insufficient_authorization" && first.otpRequired == true)
            let session = try #require(first.authSession)
            #expect(session.count >= 43)
            // Without a code: asked again, same session.
            #expect(try await kit.challenge(authSession: session).unauthorized.body.json.authSession == session)
            #expect(
                try kit.challengeError(try await kit.challenge(authSession: session, otp: "000000"))
                    == "access_denied 400")
            let code = try Self.currentCode(secret)
            let authorizationCode = try await kit.challenge(authSession: session, otp: code).ok.body.json
                .authorizationCode
            #expect(try await kit.exchangeWithoutRedirect(authorizationCode).ok.body.json.accessToken.isEmpty == false)
            // The session is spent; a new one cannot reuse the code.
            #expect(
                try kit.challengeError(try await kit.challenge(authSession: session, otp: code))
                    == "invalid_session 400")
            let again = try #require(try await kit.challenge().unauthorized.body.json.authSession)
            #expect(
                try kit.challengeError(try await kit.challenge(authSession: again, otp: code)) == "access_denied 400")
        }
    }

    @Test("five wrong codes end the auth_session")
    func sessionEndsAfterFailures() async throws {
        try await withKit(totp: true) { kit, _ in
            let session = try #require(try await kit.challenge().unauthorized.body.json.authSession)
            var errors: [String] = []
            for guess in 0..<5 {
                errors.append(
                    try kit.challengeError(
                        try await kit.challenge(
                            authSession: session, otp: String(format: "%06d", 111_111 * guess % 1_000_000))))
            }
            #expect(errors.prefix(4).allSatisfy { $0 == "access_denied 400" })
            #expect(errors.last == "invalid_session 400")
            #expect(
                try kit.challengeError(try await kit.challenge(authSession: session, otp: "123456"))
                    == "invalid_session 400")
        }
    }

    @Test(
        "DPoP: a proof on the challenge binds the auth_session and the code to its key; another key cannot continue or redeem, the same key gets DPoP-bound tokens"
    )
    func dpopBinding() async throws {
        try await withKit(totp: true) { kit, secret in
            let key = P256.Signing.PrivateKey(), other = P256.Signing.PrivateKey()
            let url = kit.issuer + "/oauth2/authorize-challenge"
            let session = try #require(
                try await kit.challenge(dpop: try DPoPProof.make(key: key, method: "POST", url: url)).unauthorized.body
                    .json.authSession)
            // Without a proof, or with another key: the session is not theirs.
            #expect(
                try kit.challengeError(try await kit.challenge(authSession: session, otp: try Self.currentCode(secret)))
                    == "invalid_session 400")
            #expect(
                try kit.challengeError(
                    try await kit.challenge(
                        authSession: session, otp: try Self.currentCode(secret),
                        dpop: try DPoPProof.make(key: other, method: "POST", url: url))) == "invalid_session 400")
            // A proof for another endpoint is refused outright.
            #expect(
                try kit.challengeError(
                    try await kit.challenge(
                        authSession: session, otp: "000000",
                        dpop: try DPoPProof.make(key: key, method: "POST", url: kit.issuer + "/oauth2/token")))
                    == "invalid_dpop_proof 400")
            let code = try await kit.challenge(
                authSession: session, otp: try Self.currentCode(secret),
                dpop: try DPoPProof.make(key: key, method: "POST", url: url)
            )
            .ok.body.json.authorizationCode
            let token = kit.issuer + "/oauth2/token"
            #expect(
                try OAuthTestKit.errorCode(
                    try await kit.exchangeWithoutRedirect(
                        code, dpop: try DPoPProof.make(key: other, method: "POST", url: token))) == "invalid_dpop_proof"
            )
        }
        try await withKit { kit, _ in
            let key = P256.Signing.PrivateKey()
            let url = kit.issuer + "/oauth2/authorize-challenge"
            let token = kit.issuer + "/oauth2/token"
            let unproven = try await kit.challenge(dpop: try DPoPProof.make(key: key, method: "POST", url: url)).ok.body
                .json.authorizationCode
            #expect(try OAuthTestKit.errorCode(try await kit.exchangeWithoutRedirect(unproven)) == "invalid_dpop_proof")
            let code = try await kit.challenge(dpop: try DPoPProof.make(key: key, method: "POST", url: url)).ok.body
                .json.authorizationCode
            let tokens = try await kit.exchangeWithoutRedirect(
                code, dpop: try DPoPProof.make(key: key, method: "POST", url: token)
            ).ok.body.json
            #expect(tokens.tokenType == .dPoP)
            #expect(
                try jwtClaims(tokens.accessToken)["cnf"]?.objectValue?["jkt"]?.stringValue
                    == JWK.thumbprint(key.publicKey))
        }
    }

    @Test(
        "the sign-in form asks a TOTP user for the code on a second page (autocomplete=one-time-code), refuses a wrong code on it, redirects with a code for the right one; the JSON form path sends such users to the challenge endpoint"
    )
    func formSecondFactor() async throws {
        try await withKit(totp: true) { kit, secret in
            let jar = CookieJar()
            let browser = Client.browser(port: kit.port, jar: jar)
            let page = try await browser.getAuthorize(
                path: .init(tenant: "demo"),
                query: .init(
                    responseType: "code", clientId: kit.clientID, redirectUri: kit.redirectURI, scope: "openid",
                    state: "st-1", nonce: "n-1",
                    codeChallenge: OAuthTestKit.challenge, codeChallengeMethod: "S256")
            ).ok
            let html = try await String(collecting: try page.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            var form = kit.form()
            form.scope = "openid"
            form.csrfToken = try Self.hidden("csrf_token", in: html)
            let step = try await browser.postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(form)
            ).ok
            let otpPage = try await String(collecting: try step.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(otpPage.contains("autocomplete=\"one-time-code\"") && otpPage.contains("name=\"auth_session\""))
            var otpForm = form
            otpForm.username = nil
            otpForm.password = nil
            otpForm.authSession = try Self.hidden("auth_session", in: otpPage)
            otpForm.csrfToken = try Self.hidden("csrf_token", in: otpPage)
            otpForm.otp = "000000"
            let refused = try await browser.postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(otpForm))
            let refusedPage = try await String(
                collecting: try refused.unauthorized.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(refusedPage.contains("role=\"alert\"") && refusedPage.contains("aria-invalid=\"true\""))
            otpForm.csrfToken = try Self.hidden("csrf_token", in: refusedPage)
            otpForm.otp = try Self.currentCode(secret)
            // Another browser (no cookie) cannot finish it.
            let stranger = Client.browser(port: kit.port, jar: CookieJar())
            let strangerAnswer = try await stranger.postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(otpForm))
            let strangerPage = try await String(
                collecting: try strangerAnswer.forbidden.body.textHtmlCharsetUtf8, upTo: 1 << 20)
            #expect(strangerPage.contains("role=\"alert\"") && !strangerPage.contains("name=\"otp\""))
            let done = try await browser.postAuthorize(
                path: .init(tenant: "demo"), headers: .init(accept: [.init(contentType: .textHtmlCharsetUtf8)]),
                body: .urlEncodedForm(otpForm)
            ).seeOther
            let location = try #require(URLComponents(string: done.headers.location))
            #expect(location.queryItems?.contains { $0.name == "code" } == true)

            // The JSON form path cannot show the code page.
            let json = try await kit.nativeLogin(kit.form()).unauthorized.body.json
            #expect(json.error == "insufficient_authorization")
        }
    }

    static func hidden(_ name: String, in html: String) throws -> String {
        let range = try #require(html.range(of: "name=\"\(name)\" value=\"([^\"]+)\"", options: .regularExpression))
        return String(String(html[range]).components(separatedBy: "value=\"")[1].dropLast())
    }
}

extension OAuthTestKit {
    /// A request to the authorization challenge endpoint; parameters default to a complete first request.
    func challenge(
        clientID: String? = nil, responseType: String? = "code", scope: String? = "openid profile",
        codeChallenge: String? = OAuthTestKit.challenge,
        method: String? = "S256", username: String? = nil, password: String? = nil, authSession: String? = nil,
        otp: String? = nil,
        dpop: String? = nil
    ) async throws -> Operations.PostAuthorizationChallenge.Output {
        let form: Components.Schemas.ChallengeForm
        if let authSession {
            form = .init(authSession: authSession, otp: otp)
        } else {
            form = .init(
                responseType: responseType, clientId: clientID ?? self.clientID, scope: scope,
                codeChallenge: codeChallenge, codeChallengeMethod: method,
                nonce: "n-native", username: username ?? self.username, password: password ?? self.password)
        }
        return try await client.postAuthorizationChallenge(
            path: .init(tenant: tenant), headers: .init(dPoP: dpop), body: .urlEncodedForm(form))
    }

    /// The error code and status of a challenge answer.
    /// As `"<error> <status>"`.
    func challengeError(_ out: Operations.PostAuthorizationChallenge.Output) throws -> String {
        switch out {
        case .badRequest(let r): return "\(try r.body.json.error) 400"
        case .unauthorized(let r): return "\(try r.body.json.error) 401"
        default: Issue.record("expected an error, got \(out)"); return ""
        }
    }

    /// The token request of the draft: code and verifier, no redirect_uri.
    func exchangeWithoutRedirect(_ code: String, dpop: String? = nil) async throws -> Operations.PostToken.Output {
        try await client.postToken(
            path: .init(tenant: tenant), headers: .init(dPoP: dpop),
            body: .urlEncodedForm(
                .init(
                    grantType: "authorization_code", code: code, codeVerifier: OAuthTestKit.verifier, clientId: clientID
                )))
    }
}
