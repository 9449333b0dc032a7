import AsyncHTTPClient
import Crypto
import Foundation
import GatewayAPI
import GatewayCore
import GatewayServer
import Testing

/// Serialized: each test runs a gateway; running them one at a time keeps the 2-core CI
/// machine responsive for the timing-sensitive suites that run beside this one.
@Suite("OAuth refusals, one test each", .serialized)
struct OAuthRefusalTests {
    /// Runs `body` with a kit whose client and user are registered in tenant demo.
    func withKit(_ body: @Sendable @escaping (OAuthTestKit) async throws -> Void) async throws {
        try await withKit(configured: { _ in }, body)
    }

    func withKit(
        clock: WallClock = .system, configured configure: @escaping @Sendable (inout OAuthClient) -> Void,
        _ body: @Sendable @escaping (OAuthTestKit) async throws -> Void
    ) async throws {
        try await GatewayHarness.withGateway(clock: clock) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp(configure)
            try await body(kit)
        }
    }

    func redirectError(_ out: Operations.PostAuthorize.Output) throws -> String? {
        let location = try out.ok.body.json.redirectTo
        return URLComponents(string: location)?.queryItems?.first { $0.name == "error" }?.value
    }

    @Test(
        "a client registered with --dpop-nonce: a proof without the server nonce gets use_dpop_nonce and a DPoP-Nonce header; with it, tokens (and the next nonce); another tenant's or a made-up nonce is refused"
    )
    func dpopServerNonce() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "nonce-app-" + UUID().uuidString.prefix(6).lowercased()
            try await kit.setUp { $0.dpopBound = true; $0.dpopNonceRequired = true }
            let key = P256.Signing.PrivateKey()
            let url = "\(kit.issuer)/oauth2/token"
            let code = try await kit.code()
            // No nonce: refused, the code is not spent, and the answer names the nonce to use.
            let first = try await kit.exchange(code, dpop: try DPoPProof.make(key: key, method: "POST", url: url))
            guard case .badRequest(let refusal) = first else {
                Issue.record("expected use_dpop_nonce, got \(first)")
                return
            }
            #expect(try refusal.body.json.error == "use_dpop_nonce")
            let nonce = try #require(refusal.headers.dPoPNonce)
            // A made-up nonce, and one of another tenant, are refused the same way.
            let forged = try await kit.exchange(
                code, dpop: try DPoPProof.make(key: key, method: "POST", url: url, nonce: "1.forged"))
            #expect(try OAuthTestKit.errorCode(forged) == "use_dpop_nonce")
            let foreign = harness.bootstrap.services.dpopNonces.current(tenantID: "other-tenant")
            #expect(
                try OAuthTestKit.errorCode(
                    try await kit.exchange(
                        code, dpop: try DPoPProof.make(key: key, method: "POST", url: url, nonce: foreign)))
                    == "use_dpop_nonce")
            // With the nonce: tokens, bound to the key, and the next nonce.
            let issued = try await kit.exchange(
                code, dpop: try DPoPProof.make(key: key, method: "POST", url: url, nonce: nonce)
            ).ok
            #expect(try issued.body.json.tokenType == .dPoP)
            #expect(issued.headers.dPoPNonce != nil)

            // The resource server asks for the nonce too (RFC 9449 §9), and the same nonce serves.
            let accessToken = try issued.body.json.accessToken
            let meURL = "\(kit.base)/t/demo/v1/me"
            var request = HTTPClientRequest(url: meURL)
            request.headers.add(name: "Authorization", value: "DPoP \(accessToken)")
            request.headers.add(
                name: "DPoP", value: try DPoPProof.make(key: key, method: "GET", url: meURL, accessToken: accessToken))
            let refused = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
            #expect(refused.status.code == 401)
            #expect(refused.headers.first(name: "WWW-Authenticate")?.contains("use_dpop_nonce") == true)
            let resourceNonce = try #require(refused.headers.first(name: "DPoP-Nonce"))
            #expect(harness.bootstrap.services.dpopNonces.isValid(resourceNonce, tenantID: "demo"))
            let withNonce = try DPoPProof.make(
                key: key, method: "GET", url: meURL, accessToken: accessToken, nonce: resourceNonce)
            #expect(try await kit.me(authorization: "DPoP \(accessToken)", dpop: withNonce).status == 200)
            let stale = try DPoPProof.make(
                key: key, method: "GET", url: meURL, accessToken: accessToken, nonce: foreign)
            #expect(try await kit.me(authorization: "DPoP \(accessToken)", dpop: stale).status == 401)
        }
    }

    @Test("a client registered without the refresh_token grant gets unauthorized_client when it refreshes")
    func grantTypesPerClient() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "codes-only-" + UUID().uuidString.prefix(6).lowercased()
            try await kit.setUp { $0.grantTypes = ["authorization_code"] }
            let tokens = try await kit.tokens()
            #expect(
                try OAuthTestKit.errorCode(try await kit.refresh(tokens.issuedRefreshToken)) == "unauthorized_client")
        }
    }

    @Test("code_challenge_method=plain is refused")
    func plainChallenge() async throws {
        try await withKit { kit in
            let out = try await kit.nativeLogin(kit.form(challenge: OAuthTestKit.verifier, method: "plain"))
            #expect(try redirectError(out) == "invalid_request")
        }
    }

    @Test("a missing code_challenge is refused")
    func missingChallenge() async throws {
        try await withKit { kit in
            let out = try await kit.nativeLogin(kit.form(challenge: nil, method: nil))
            #expect(try redirectError(out) == "invalid_request")
        }
    }

    @Test("a missing code_challenge_method (downgrade to plain) is refused")
    func downgrade() async throws {
        try await withKit { kit in
            let out = try await kit.nativeLogin(kit.form(method: nil))
            #expect(try redirectError(out) == "invalid_request")
        }
    }

    @Test("a 42-character verifier is refused")
    func shortVerifier() async throws {
        try await withKit { kit in
            let code = try await kit.code()
            #expect(
                try OAuthTestKit.errorCode(try await kit.exchange(code, verifier: String(repeating: "a", count: 42)))
                    == "invalid_grant")
        }
    }

    @Test("a 129-character verifier is refused")
    func longVerifier() async throws {
        try await withKit { kit in
            let code = try await kit.code()
            #expect(
                try OAuthTestKit.errorCode(try await kit.exchange(code, verifier: String(repeating: "a", count: 129)))
                    == "invalid_grant")
        }
    }

    @Test("a wrong verifier is refused")
    func wrongVerifier() async throws {
        try await withKit { kit in
            let code = try await kit.code()
            #expect(
                try OAuthTestKit.errorCode(try await kit.exchange(code, verifier: String(repeating: "b", count: 50)))
                    == "invalid_grant")
        }
    }

    @Test("a missing verifier is refused")
    func missingVerifier() async throws {
        try await withKit { kit in
            let code = try await kit.code()
            #expect(try OAuthTestKit.errorCode(try await kit.exchange(code, verifier: nil)) == "invalid_grant")
        }
    }

    @Test("a replayed code is refused and revokes the tokens issued from it")
    func codeReplay() async throws {
        try await withKit { kit in
            let code = try await kit.code()
            let tokens = try await kit.exchange(code).ok.body.json
            #expect(try await kit.me(authorization: "Bearer \(tokens.accessToken)").status == 200)
            #expect(try OAuthTestKit.errorCode(try await kit.exchange(code)) == "invalid_grant")
            #expect(try await kit.me(authorization: "Bearer \(tokens.accessToken)").status == 401)
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(tokens.issuedRefreshToken)) == "invalid_grant")
        }
    }

    @Test("a code is redeemable within its lifetime on the server's clock, and refused after it")
    func expiredCode() async throws {
        let time = ManualClock(Date())
        try await withKit(clock: time.clock, configured: { _ in }) { kit in
            let user = try #require(try await kit.store.user(tenantID: "demo", username: kit.username))
            let codes = AuthorizationCodes(cache: kit.harness.bootstrap.services.cache, clock: time.clock)
            let grant = AuthorizationGrant(
                tenantID: "demo", clientID: kit.clientID, redirectURI: kit.redirectURI,
                codeChallenge: OAuthTestKit.challenge,
                subject: user.subject, scope: "openid", nonce: nil, authTime: 0)
            let code = try await codes.issue(grant)
            time.advance(by: AuthorizationCodes.lifetime - .seconds(1))
            _ = try await kit.exchange(try await codes.issue(grant)).ok
            time.advance(by: .seconds(2))
            #expect(try OAuthTestKit.errorCode(try await kit.exchange(code)) == "invalid_grant")
        }
    }

    @Test("an unregistered redirect_uri gets an error page, never a redirect")
    func redirectMismatch() async throws {
        try await withKit { kit in
            let out = try await kit.client.getAuthorize(
                path: .init(tenant: "demo"),
                query: .init(
                    responseType: "code", clientId: kit.clientID, redirectUri: "https://evil.example/cb",
                    codeChallenge: OAuthTestKit.challenge, codeChallengeMethod: "S256"))
            _ = try out.forbidden
        }
    }

    @Test("redirect_uri prefix and suffix tricks are refused; loopback may differ only in port")
    func redirectTricks() async throws {
        try await withKit { kit in
            for uri in [
                "com.example.app:/callback/../x", "com.example.app:/callbackx", "com.example.app:/callback?x=1",
                "http://127.0.0.1.evil.example/callback",
                "http://127.0.0.1:8080/callback/x", "http://localhost/callback",
            ] {
                let out = try await kit.nativeLogin(kit.form(redirect: uri))
                #expect(throws: (any Error).self, "\(uri) must be refused") { _ = try out.ok }
            }
            let loopback = try await kit.nativeLogin(kit.form(redirect: "http://127.0.0.1:53111/callback")).ok.body.json
                .redirectTo
            #expect(loopback.hasPrefix("http://127.0.0.1:53111/callback?code="))
        }
    }

    @Test("an unknown client gets an error page")
    func unknownClient() async throws {
        try await withKit { kit in
            _ = try await kit.nativeLogin(kit.form(clientID: "nobody")).forbidden
            #expect(try OAuthTestKit.errorCode(try await kit.exchange("x", clientID: "nobody")) == "invalid_client")
        }
    }

    @Test("reuse of a rotated refresh token revokes the whole family")
    func refreshReuse() async throws {
        try await withKit { kit in
            let tokens = try await kit.tokens()
            let rotated = try await kit.refresh(tokens.issuedRefreshToken).ok.body.json
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(tokens.issuedRefreshToken)) == "invalid_grant")
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(rotated.issuedRefreshToken)) == "invalid_grant")
            #expect(try await kit.me(authorization: "Bearer \(rotated.accessToken)").status == 401)
            #expect(try await kit.me(authorization: "Bearer \(tokens.accessToken)").status == 401)
        }
    }

    @Test("a disabled user's refresh token is refused and its family revoked; the user cannot sign in")
    func disabledUser() async throws {
        try await withKit { kit in
            let tokens = try await kit.tokens()
            var user = try #require(try await kit.store.user(tenantID: "demo", username: kit.username))
            user.disabled = true
            try await kit.store.updateUser(user)
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(tokens.issuedRefreshToken)) == "invalid_grant")
            #expect(try await kit.me(authorization: "Bearer \(tokens.accessToken)").status == 401)
            _ = try await kit.nativeLogin(kit.form()).unauthorized
        }
    }

    @Test("a tenant-A token on a tenant-B path is 401 invalid_token with WWW-Authenticate")
    func crossTenant() async throws {
        try await withKit { kit in
            try await kit.harness.operatorStore().create(Tenant(id: "other", displayName: "Other"), actor: "test")
            #expect(try await eventually(within: .seconds(10)) {
                if case .ok = try await kit.client.getHostConfig(path: .init(tenant: "other")) { return true }
                return false
            })
            let tokens = try await kit.tokens()
            let answer = try await kit.me(authorization: "Bearer \(tokens.accessToken)", tenant: "other")
            #expect(answer.status == 401)
            #expect(answer.wwwAuthenticate?.contains(#"error="invalid_token""#) == true)
        }
    }

    @Test("a revoked access token is refused")
    func revokedToken() async throws {
        try await withKit { kit in
            let tokens = try await kit.tokens()
            _ = try await kit.client.revokeToken(
                path: .init(tenant: "demo"),
                body: .urlEncodedForm(.init(token: tokens.accessToken, clientId: kit.clientID))
            ).ok
            #expect(try await kit.me(authorization: "Bearer \(tokens.accessToken)").status == 401)
        }
    }

    @Test("an id_token (typ JWT) is not accepted as an access token")
    func wrongTyp() async throws {
        try await withKit { kit in
            let tokens = try await kit.tokens()
            #expect(try await kit.me(authorization: "Bearer \(tokens.issuedIDToken)").status == 401)
        }
    }

    @Test("alg none is refused")
    func algNone() async throws {
        try await withKit { kit in
            let tokens = try await kit.tokens()
            let parts = tokens.accessToken.split(separator: ".")
            let header = Base64URL.encode(Data(#"{"alg":"none","typ":"at+jwt"}"#.utf8))
            let answer = try await kit.me(authorization: "Bearer \(header).\(parts[1]).")
            #expect(answer.status == 401)
            #expect(try await kit.me(authorization: nil).status == 401)
        }
    }

    @Test("DPoP: bound tokens need a matching proof; a replayed proof and a wrong htu are refused")
    func dpop() async throws {
        try await withKit(configured: { $0.dpopBound = true }) { kit in
            let key = P256.Signing.PrivateKey()
            // No proof at the token endpoint for a DPoP client.
            #expect(try OAuthTestKit.errorCode(try await kit.exchange(try await kit.code())) == "invalid_dpop_proof")
            let proof = try DPoPProof.make(key: key, method: "POST", url: "\(kit.issuer)/oauth2/token")
            let tokens = try await kit.exchange(try await kit.code(), dpop: proof).ok.body.json
            #expect(tokens.tokenType == .dPoP)
            #expect(
                try jwtClaims(tokens.accessToken)["cnf"]?.objectValue?["jkt"]?.stringValue
                    == JWK.thumbprint(key.publicKey))
            let meURL = "\(kit.base)/t/demo/v1/me"
            let good = try DPoPProof.make(key: key, method: "GET", url: meURL, accessToken: tokens.accessToken)
            #expect(try await kit.me(authorization: "DPoP \(tokens.accessToken)", dpop: good).status == 200)
            // Replay of the same proof.
            let replay = try await kit.me(authorization: "DPoP \(tokens.accessToken)", dpop: good)
            #expect(replay.status == 401)
            #expect(replay.wwwAuthenticate?.contains("invalid_dpop_proof") == true)
            // Wrong htu.
            let wrongURL = try DPoPProof.make(
                key: key, method: "GET", url: "\(kit.base)/t/demo/v1/other", accessToken: tokens.accessToken)
            #expect(try await kit.me(authorization: "DPoP \(tokens.accessToken)", dpop: wrongURL).status == 401)
            // Bearer use of a bound token.
            #expect(try await kit.me(authorization: "Bearer \(tokens.accessToken)").status == 401)
            // Replayed token-endpoint proof.
            #expect(
                try OAuthTestKit.errorCode(try await kit.refresh(tokens.issuedRefreshToken, dpop: proof))
                    == "invalid_dpop_proof")
            let fresh = try DPoPProof.make(key: key, method: "POST", url: "\(kit.issuer)/oauth2/token")
            #expect(try await kit.refresh(tokens.issuedRefreshToken, dpop: fresh).ok.body.json.tokenType == .dPoP)
        }
    }
}

/// Builds DPoP proofs like a client would.
enum DPoPProof {
    static func make(
        key: P256.Signing.PrivateKey, method: String, url: String, accessToken: String? = nil, iat: Date = Date(),
        nonce: String? = nil
    ) throws -> String {
        var claims: [String: JSONValue] = [
            "htm": .string(method), "htu": .string(url), "jti": .string(UUID().uuidString),
            "iat": .number(iat.timeIntervalSince1970.rounded(.down)),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessToken { claims["ath"] = .string(Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8)))) }
        return try JWS.sign(
            claims: claims, typ: "dpop+jwt", kid: nil, key: key,
            extraHeader: ["jwk": .object(JWK.publicJWK(key.publicKey))])
    }
}
