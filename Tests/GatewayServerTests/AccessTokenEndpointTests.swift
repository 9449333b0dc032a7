import Crypto
import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Mini-app access tokens over HTTP: the documented rules, SDK error types, tenant-signed JWTs")
struct AccessTokenEndpointTests {
    private static let accessToken = CustomPermission.accessToken.rawValue

    private static func request(_ audience: String, _ scopes: [String]) -> Operations.IssueMiniAppAccessToken.Input.Body
    {
        .json(.init(audience: audience, scopes: scopes))
    }

    private static func errorType(
        _ out: Operations.IssueMiniAppAccessToken.Output
    ) throws -> Components.Schemas.Problem.ErrorTypePayload? {
        let problem = try out.forbidden.body.applicationProblemJson
        #expect(problem.code == "access_token_denied")
        #expect((problem.message?.count ?? 0) > 0)
        return problem.errorType
    }

    @Test("a consent flip changes the answer at once, despite the answer cache")
    func consentFlip() async throws {
        try await FakePlatform.with { fake in
            fake.seedHelloWithAccessToken()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("ats")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let path = Operations.IssueMiniAppAccessToken.Input.Path(tenant: id, id: "hello")
                let good = Self.request("rae", ["idinfo_read_openid"])

                #expect(
                    try Self.errorType(try await client.issueMiniAppAccessToken(path: path, body: good))
                        == .authorizationFailureError)
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"), body: permissionUpdate([(Self.accessToken, .allowed)])
                ).ok
                let issued = try await client.issueMiniAppAccessToken(path: path, body: good).ok.body.json
                #expect(issued.scopes.audience == "rae")
                #expect(issued.scopes.scopes == ["idinfo_read_openid"])
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                #expect(issued.validUntil > now && issued.validUntil <= now + 300_000 + 2_000)

                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"), body: permissionUpdate([(Self.accessToken, .denied)])
                ).ok
                #expect(
                    try Self.errorType(try await client.issueMiniAppAccessToken(path: path, body: good))
                        == .authorizationFailureError)
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"), body: permissionUpdate([(Self.accessToken, .allowed)])
                ).ok
                _ = try await client.issueMiniAppAccessToken(path: path, body: good).ok
            }
        }
    }

    @Test("token exchange at /oauth2/token answers by the same rules (RFC 8693, issue 16 item 3b)")
    func tokenExchangeForAMiniAppToken() async throws {
        try await FakePlatform.with { fake in
            fake.seedHelloWithAccessToken()
            try await GatewayHarness.withGateway { harness, client, port in
                let id = uniqueTenantID("ats")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                var kit = OAuthTestKit(harness: harness, client: client, port: port)
                kit.tenant = id
                kit.clientID = "exchanger"
                try await kit.setUp { $0.grantTypes = ["authorization_code", "refresh_token", TokenExchange.grantType] }
                let access = try await kit.tokens().accessToken
                func exchange(
                    audience: String = "rae", scope: String = "idinfo_read_openid",
                    resource: String = "urn:superapp:miniapp:hello",
                    subject: String? = nil
                ) async throws -> Operations.PostToken.Output {
                    try await client.postToken(
                        path: .init(tenant: id),
                        body: .urlEncodedForm(
                            .init(
                                grantType: TokenExchange.grantType, clientId: kit.clientID, scope: scope,
                                subjectToken: subject ?? access,
                                subjectTokenType: TokenExchange.accessTokenType, audience: audience, resource: resource)
                        ))
                }
                // No ACCESS_TOKEN consent yet: refused like the endpoint's AuthorizationFailureError.
                guard case .forbidden(let denied) = try await exchange() else { Issue.record("expected 403"); return }
                #expect(try denied.body.json.error == "access_denied")
                let api = kit.authorizedClient("Bearer \(access)")
                _ = try await api.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"), body: permissionUpdate([(Self.accessToken, .allowed)])
                ).ok
                let issued = try await exchange().ok.body.json
                #expect(issued.issuedTokenType == TokenExchange.accessTokenType)
                #expect(issued.refreshToken == nil && issued.idToken == nil)
                #expect(issued.scope == "idinfo_read_openid")
                let claims = try jwtClaims(issued.accessToken)
                #expect(claims["azp"]?.stringValue == "hello")
                #expect(claims["aud"]?.stringValue == "rae")
                #expect(claims["sub"]?.stringValue == (try jwtClaims(access))["sub"]?.stringValue)
                // Issue 62: neither the exchange's token nor the endpoint's opens a door of the gateway's.
                try await ScopeEnforcementTests.expectNoDoors(
                    issued.accessToken, kind: "token exchange", base: kit.base, tenant: id)
                let minted = try await api.issueMiniAppAccessToken(
                    path: .init(tenant: id, id: "hello"), body: Self.request("rae", ["idinfo_read_openid"])
                ).ok.body.json.token
                try await ScopeEnforcementTests.expectNoDoors(minted, kind: "mini-app token", base: kit.base, tenant: id)
                // The endpoint's refusals, as OAuth errors.
                #expect(try OAuthTestKit.errorCode(try await exchange(audience: "other")) == "invalid_target")
                #expect(try OAuthTestKit.errorCode(try await exchange(scope: "")) == "invalid_target")
                #expect(
                    try OAuthTestKit.errorCode(try await exchange(resource: "urn:superapp:miniapp:.."))
                        == "invalid_target")
                #expect(
                    try OAuthTestKit.errorCode(try await exchange(resource: "https://elsewhere")) == "invalid_target")
                #expect(try OAuthTestKit.errorCode(try await exchange(subject: "not-a-jwt")) == "invalid_grant")
                #expect(try OAuthTestKit.errorCode(try await exchange(subject: issued.accessToken)) == "invalid_grant")
            }
        }
    }

    @Test("empty scopes, a scope superset and an unknown audience are refused with the SDK's types")
    func refusals() async throws {
        try await FakePlatform.with { fake in
            fake.seedHelloWithAccessToken()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("ats")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"), body: permissionUpdate([(Self.accessToken, .allowed)])
                ).ok
                let path = Operations.IssueMiniAppAccessToken.Input.Path(tenant: id, id: "hello")
                #expect(
                    try Self.errorType(
                        try await client.issueMiniAppAccessToken(path: path, body: Self.request("rae", [])))
                        == .scopesNotSupportedError)
                #expect(
                    try Self.errorType(
                        try await client.issueMiniAppAccessToken(
                            path: path, body: Self.request("rae", ["idinfo_read_openid", "memberinfo_read_point"])))
                        == .scopesNotSupportedError)
                #expect(
                    try Self.errorType(
                        try await client.issueMiniAppAccessToken(
                            path: path, body: Self.request("RAE", ["idinfo_read_openid"])))
                        == .audienceNotSupportedError)
                #expect(
                    try Self.errorType(
                        try await client.issueMiniAppAccessToken(
                            path: path, body: Self.request("other", ["idinfo_read_openid"])))
                        == .audienceNotSupportedError)
            }
        }
    }

    @Test(
        "the token is an ES256 JWT verifiable with the tenant's JWKS, with aud, scope, sub, azp, iss, jti and ≤ 5 min lifetime"
    )
    func tokenVerifiesAgainstJWKS() async throws {
        try await FakePlatform.with { fake in
            fake.seedHelloWithAccessToken()
            try await GatewayHarness.withGateway { harness, client, port in
                let id = uniqueTenantID("ats")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"), body: permissionUpdate([(Self.accessToken, .allowed)])
                ).ok
                let token = try await client.issueMiniAppAccessToken(
                    path: .init(tenant: id, id: "hello"), body: Self.request("rae", ["idinfo_read_openid"])
                ).ok.body.json.token
                let subject = try await client.getMe(path: .init(tenant: id)).ok.body.json.sub

                let parsed = try JWS.parse(token)
                #expect(parsed.header["alg"]?.stringValue == "ES256")
                let kid = try #require(parsed.header["kid"]?.stringValue)
                let jwks = try await client.getJWKS(path: .init(tenant: id)).ok.body.json
                let jwk = try #require(jwks.keys.first { $0.kid == kid })
                let x = try #require(jwk.x.flatMap(Base64URL.decode))
                let y = try #require(jwk.y.flatMap(Base64URL.decode))
                try JWS.verify(parsed, key: try P256.Signing.PublicKey(rawRepresentation: x + y))

                let claims = try jwtClaims(token)
                #expect(claims["aud"]?.stringValue == "rae")
                #expect(claims["scope"]?.stringValue == "idinfo_read_openid")
                #expect(claims["azp"]?.stringValue == "hello")
                #expect(claims["sub"]?.stringValue == subject)
                #expect(claims["iss"]?.stringValue == "http://127.0.0.1:\(port)/t/\(id)")
                #expect((claims["jti"]?.stringValue?.count ?? 0) >= 16)
                guard case .number(let iat) = claims["iat"], case .number(let exp) = claims["exp"] else {
                    Issue.record("iat/exp missing")
                    return
                }
                #expect(exp - iat <= 300 && exp > iat)
            }
        }
    }

    @Test(
        "issued tokens introspect active; DELETE …/access-tokens and withdrawing ACCESS_TOKEN revoke them",
        arguments: DatabaseBackend.available)
    func revocation(backend: DatabaseBackend) async throws {
        try await FakePlatform.with { fake in
            fake.seedHelloWithAccessToken()
            try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
                let id = uniqueTenantID("atrev")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let secret = ClientSecret.generate()
                try await harness.bootstrap.authStore.addClient(
                    OAuthClient(
                        tenantID: id, clientID: "rs", confidential: true, redirectURIs: ["https://rs.example/cb"]),
                    secretHash: secret.hash)
                func introspect(_ token: String) async throws -> Components.Schemas.Introspection {
                    try await client.introspectToken(
                        path: .init(tenant: id),
                        body: .urlEncodedForm(.init(token: token, clientId: "rs", clientSecret: secret.secret))
                    ).ok.body.json
                }
                let path = Operations.IssueMiniAppAccessToken.Input.Path(tenant: id, id: "hello")
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"), body: permissionUpdate([(Self.accessToken, .allowed)])
                ).ok
                let first = try await client.issueMiniAppAccessToken(
                    path: path, body: Self.request("rae", ["idinfo_read_openid"])
                ).ok.body.json
                let second = try await client.issueMiniAppAccessToken(
                    path: path, body: Self.request("rae", ["idinfo_read_openid"])
                ).ok.body.json

                let seen = try await introspect(first.token)
                #expect(seen.active)
                #expect(seen.aud == "rae")
                #expect(seen.azp == "hello")
                #expect(seen.scope == "idinfo_read_openid")
                #expect(seen.clientId == nil)

                let revoked = try await client.revokeMiniAppAccessTokens(path: .init(tenant: id, id: "hello")).ok.body
                    .json
                #expect(revoked.revoked == 2)
                #expect(try await introspect(first.token) == .init(active: false))
                #expect(try await introspect(second.token) == .init(active: false))

                // Withdrawing the consent revokes a token issued after the DELETE, too.
                let third = try await client.issueMiniAppAccessToken(
                    path: path, body: Self.request("rae", ["idinfo_read_openid"])
                ).ok.body.json
                #expect(try await introspect(third.token).active)
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"), body: permissionUpdate([(Self.accessToken, .denied)])
                ).ok
                #expect(try await introspect(third.token) == .init(active: false))
                // A mini-app token is never a bearer token of the gateway's API.
                var kit = OAuthTestKit(harness: harness, client: client, port: port)
                kit.tenant = id
                #expect(try await kit.me(authorization: "Bearer " + third.token).status == 401)
            }
        }
    }
}
