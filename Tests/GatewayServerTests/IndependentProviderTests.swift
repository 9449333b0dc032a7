import AsyncHTTPClient
import Foundation
import GatewayCore
import NIOCore
import ProcessSpawn
import Testing

/// Sign-in through an OpenID Provider that is not the gateway: `oidc-provider-mock` from PyPI
/// (Flask + Authlib; RS256 ID tokens, discovery, JWKS; pinned in scripts/test-requirements.txt),
/// started as its own process. Its sign-in form takes the user's `sub` as a POST to the
/// authorization URL, which is what a browser would send.
@Suite(
    "Federation with an independent OpenID Provider (oidc-provider-mock)",
    .enabled(
        if: PythonScript.canImport("oidc_provider_mock"),
        "oidc-provider-mock is not installed (make test installs it into .build/test-venv)"))
struct IndependentProviderTests {
    @Test func signInThroughOIDCProviderMock() async throws {
        let providerPort = try freeTCPPort()
        let provider = try ChildProcess.start(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-m", "oidc_provider_mock", "--port", String(providerPort)],
            environment: ProcessInfo.processInfo.environment)
        defer { provider.terminate() }
        let issuer = "http://127.0.0.1:\(providerPort)"
        let up = await eventually(within: .seconds(20)) {
            (try? await TestHTTP.noRedirects.execute(
                HTTPClientRequest(url: issuer + "/.well-known/openid-configuration"), timeout: .seconds(2)
            ).status.code) == 200
        }
        try #require(up, "oidc-provider-mock did not start")
        try await GatewayHarness.withGateway { harness, _, port in
            let world = FederationTests.World(harness: harness, port: port)
            try await world.setUp()
            try await world.store.addIdentityProvider(
                IdentityProvider(
                    tenantID: "shop", alias: "mock", displayName: "Mock", issuer: issuer,
                    clientID: "gateway-shop", clientSecret: SecretValue("any-secret-works-here")))
            // The user at the provider, with a verified email.
            var user = HTTPClientRequest(url: issuer + "/users/dana")
            user.method = .PUT
            user.headers.add(name: "Content-Type", value: "application/json")
            user.body = .bytes(
                ByteBuffer(string: #"{"email": "dana@example.test", "email_verified": true, "name": "Dana"}"#))
            #expect(try await TestHTTP.noRedirects.execute(user, timeout: .seconds(5)).status.code == 204)

            let start = try await world.get(world.shopAuthorize(idpHint: "mock"))
            let upstream = try #require(start.location)
            #expect(upstream.hasPrefix(issuer + "/oauth2/authorize?"))
            let cookie = try #require(start.setCookie?.split(separator: ";").first.map(String.init))
            // The provider's form: POST the authorization URL with the subject.
            var signIn = HTTPClientRequest(url: upstream)
            signIn.method = .POST
            signIn.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            signIn.body = .bytes(ByteBuffer(string: "sub=dana"))
            let answer = try await TestHTTP.noRedirects.execute(signIn, timeout: .seconds(10))
            let callback = try #require(
                answer.headers.first(name: "Location"), "the provider answered \(answer.status)")
            #expect(callback.hasPrefix(world.shopIssuer + "/oauth2/idp/callback?"))
            let back = try await world.get(callback, cookie: cookie)
            #expect(back.status == 302, "callback: \(back.status) \(back.body)")
            let location = try #require(back.location)
            let tokens = try await world.shopTokens(location)
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let subject = try #require(try jwtClaims(idToken)["sub"]?.stringValue)
            let link = try #require(
                try await world.store.identityLink(tenantID: "shop", issuer: issuer, externalSubject: "dana"))
            #expect(link.subject == subject)
            let local = try #require(try await world.store.user(tenantID: "shop", subject: subject))
            #expect(local.email == "dana@example.test")
            #expect(local.name == "Dana")
        }
    }
}
