import AsyncHTTPClient
import Foundation
import GatewayAPI
import NIOCore
import NIOHTTP1
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// The hosted page of a journey (issue 63 §3), over real sockets: the screen a native app
/// could not draw, as a form from the same definition, posting back with its CSRF cookie, and
/// ending with a redirect to the app whose code redeems with that redirect URI.
@Suite("Journey hosted page", .serialized)
struct JourneyPageTests {
    struct Page {
        let status: UInt
        let headers: HTTPHeaders
        let body: String

        var csrf: String? {
            body.range(of: #"name="csrf_token" value="([^"]+)""#, options: .regularExpression).map {
                String(body[$0].dropFirst(#"name="csrf_token" value=""#.count).dropLast())
            }
        }
        var cookie: String? {
            headers.first(name: "Set-Cookie").map { String($0.split(separator: ";")[0]) }
        }
    }

    static func send(_ url: String, form: [String: String]? = nil, cookie: String? = nil) async throws -> Page {
        var request = HTTPClientRequest(url: url)
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        if let form {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(
                ByteBuffer(
                    string: form.map { "\($0.key)=\(AuthorizationServer.formEncode($0.value))" }.joined(separator: "&")))
        }
        let answer = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        return Page(
            status: answer.status.code, headers: answer.headers,
            body: String(buffer: try await answer.body.collect(upTo: 1 << 20)))
    }

    @Test("a journey finished on its hosted page: the screens as forms, a CSRF-bound post, a 303 to the app, a code for that redirect URI")
    func hostedSignIn() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "hosted-" + UUID().uuidString.prefix(6).lowercased()
            try await kit.setUp()
            let started = try await kit.client.startJourney(
                path: .init(tenant: kit.tenant),
                body: .json(
                    .init(
                        kind: .signIn, clientId: kit.clientID, codeChallenge: OAuthTestKit.challenge,
                        codeChallengeMethod: .s256, redirectUri: kit.redirectURI, state: "st-1", uiLocales: "ja"))
            ).created.body.json
            let url = started.hostedUrl

            let first = try await Self.send(url)
            #expect(first.status == 200 && first.body.contains("<html lang=\"ja\""))
            #expect(first.body.contains("name=\"identifier\"") && first.body.contains("ユーザー名"))
            #expect(first.headers.first(name: "Content-Security-Policy")?.contains("form-action 'self' com.example.app:") == true)
            let cookie = try #require(first.cookie)
            let csrf = try #require(first.csrf)

            // Without the page's cookie nothing is read.
            let forged = try await Self.send(url, form: ["action": "submit", "csrf_token": csrf, "identifier": kit.username])
            #expect(forged.status == 403)
            let password = try await Self.send(
                url, form: ["action": "submit", "csrf_token": csrf, "identifier": kit.username], cookie: cookie)
            #expect(password.status == 200 && password.body.contains("type=\"password\""))
            // One button per action, the first the form's default, named as the JSON names them.
            #expect(password.body.contains("<button type=\"submit\" name=\"action\" value=\"submit\">次へ</button>"))
            #expect(password.body.contains("value=\"back\" class=\"secondary\" formnovalidate>戻る</button>"))
            #expect(password.body.contains("autocomplete=\"current-password\""))
            let wrong = try await Self.send(
                url, form: ["action": "submit", "csrf_token": try #require(password.csrf), "password": "nope"],
                cookie: cookie)
            #expect(wrong.status == 422 && wrong.body.contains("role=\"alert\""))
            #expect(wrong.body.contains("サインイン名またはパスワードが正しくありません。"))

            let done = try await Self.send(
                url, form: ["action": "submit", "csrf_token": try #require(wrong.csrf), "password": kit.password],
                cookie: cookie)
            #expect(done.status == 303)
            let location = try #require(done.headers.first(name: "Location"))
            let items = URLComponents(string: location)?.queryItems ?? []
            #expect(location.hasPrefix(kit.redirectURI + "?"))
            #expect(items.first { $0.name == "state" }?.value == "st-1")
            #expect(items.first { $0.name == "iss" }?.value == kit.issuer)
            let code = try #require(items.first { $0.name == "code" }?.value)
            // The code is bound to the redirect URI it went to.
            let tokens = try await kit.exchange(code).ok.body.json
            #expect(tokens.idToken != nil)
            #expect(try jwtClaims(try #require(tokens.idToken))["amr"] == .array(["pwd"]))

            // The browser keeps a single sign-on session: /oauth2/authorize with prompt=none signs
            // it in silently.
            let session = try #require(done.cookie)
            #expect(session.hasPrefix("gw-sso-\(kit.tenant)="))
            let silent = try await Self.send(
                kit.base + "/t/\(kit.tenant)/oauth2/authorize?response_type=code&client_id=\(kit.clientID)"
                    + "&redirect_uri=\(AuthorizationServer.formEncode(kit.redirectURI))&scope=openid&state=s2"
                    + "&code_challenge=\(OAuthTestKit.challenge)&code_challenge_method=S256&prompt=none",
                cookie: session)
            #expect(silent.status == 302 && silent.headers.first(name: "Location")?.contains("code=") == true)

            // The journey ended: its page says to start again.
            let ended = try await Self.send(url)
            #expect(ended.status == 404 && ended.body.contains("role=\"alert\""))
        }
    }
}
