import AsyncHTTPClient
import Foundation
import GatewayCore
import Testing

/// A trusted issuer's opaque access tokens (issue 16, item 2): checked by RFC 7662
/// introspection at the issuer, answers cached until the token expires and at most the
/// configured time, refused where the issuer is not trusted or introspection says inactive.
@Suite("Opaque tokens of a trusted issuer (RFC 7662 introspection)")
struct OpaqueTokenTests {
    @Test func opaqueTokensAreIntrospectedAndCached() async throws {
        try await FakeIntrospectionIssuer.with { issuer in
            try await GatewayHarness.withGateway { harness, _, port in
                let world = FederationTests.World(harness: harness, port: port)
                try await world.setUp()
                let token = "opaque-" + UUID().uuidString
                let exp = Int(Date().timeIntervalSince1970) + 600
                issuer.tokens.withLock {
                    $0[token] = ["sub": "olga", "aud": "api://shop", "exp": exp, "scope": "read", "iss": issuer.issuer]
                }
                @Sendable func userinfo(_ value: String, tenant: String = "shop") async throws -> Int {
                    var request = HTTPClientRequest(url: "\(world.base)/t/\(tenant)/oauth2/userinfo")
                    request.headers.add(name: "Authorization", value: "Bearer \(value)")
                    return Int(try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10)).status.code)
                }
                #expect(try await userinfo(token) == 401)
                #expect(issuer.calls.withLock { $0 } == 0, "no introspection before the issuer is trusted")
                try await world.store.trustIssuer(
                    TrustedIssuer(
                        tenantID: "shop", issuer: issuer.issuer, audience: "api://shop",
                        introspection: .init(
                            clientID: FakeIntrospectionIssuer.clientID,
                            clientSecret: SecretValue(FakeIntrospectionIssuer.clientSecret), cacheSeconds: 60)))
                let accepted = await eventually(within: .seconds(10)) { (try? await userinfo(token)) == 200 }
                #expect(accepted)
                let link = try #require(
                    try await world.store.identityLink(tenantID: "shop", issuer: issuer.issuer, externalSubject: "olga")
                )
                #expect(try await world.store.user(tenantID: "shop", subject: link.subject) != nil)
                // Cached: more calls, no more introspection.
                let callsAfterFirst = issuer.calls.withLock { $0 }
                for _ in 0..<5 { #expect(try await userinfo(token) == 200) }
                #expect(issuer.calls.withLock { $0 } == callsAfterFirst)
                // An unknown opaque token is inactive (and that answer is cached too).
                #expect(try await userinfo("opaque-unknown") == 401)
                #expect(try await userinfo("opaque-unknown") == 401)
                #expect(issuer.calls.withLock { $0 } == callsAfterFirst + 1)
                // Another audience in the answer: refused. Another tenant: never introspected there.
                let elsewhere = "opaque-" + UUID().uuidString
                issuer.tokens.withLock { $0[elsewhere] = ["sub": "olga", "aud": "api://other", "exp": exp] }
                #expect(try await userinfo(elsewhere) == 401)
                #expect(try await userinfo(token, tenant: "other") == 401)
            }
        }
    }

    @Test func wrongIntrospectionCredentialsAreAServerSideProblemNotAValidToken() async throws {
        try await FakeIntrospectionIssuer.with { issuer in
            try await GatewayHarness.withGateway { harness, _, port in
                let world = FederationTests.World(harness: harness, port: port)
                try await world.setUp()
                let token = "opaque-" + UUID().uuidString
                issuer.tokens.withLock {
                    $0[token] = ["sub": "olga", "aud": "api://shop", "exp": Int(Date().timeIntervalSince1970) + 600]
                }
                try await world.store.trustIssuer(
                    TrustedIssuer(
                        tenantID: "shop", issuer: issuer.issuer, audience: "api://shop",
                        introspection: .init(
                            clientID: FakeIntrospectionIssuer.clientID, clientSecret: SecretValue("wrong"))))
                var request = HTTPClientRequest(url: "\(world.base)/t/shop/oauth2/userinfo")
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
                let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
                #expect(response.status.code == 502, "\(body)")
                #expect(body.contains("identity_provider_misconfigured"))
            }
        }
    }
}
