import AsyncHTTPClient
import Crypto
import Foundation
import GatewayCore
import NIOCore
import Testing

/// Issue 30, senders: the client-credentials grant (RFC 6749 §4.4) with client_secret_basic
/// gives a confidential sender client a token naming it; user endpoints refuse that token.
@Suite("Client credentials: sender tokens for confidential clients, refused as user tokens")
struct ClientCredentialsTests {
    struct Reply {
        var status: Int
        var json: [String: JSONValue]
        /// `WWW-Authenticate`, when the answer carries one.
        var challenge: String? = nil
    }

    /// `POST /oauth2/token` with `form` and, when given, HTTP Basic client authentication.
    static func token(
        port: Int, basic: (String, String)?, form: String, endpoint: String = "token"
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/t/demo/oauth2/\(endpoint)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let (id, secret) = basic {
            request.headers.add(name: "Authorization", value: "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString())
        }
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        let json = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(buffer: body))) ?? [:]
        return Reply(
            status: Int(response.status.code), json: json, challenge: response.headers.first(name: "WWW-Authenticate"))
    }

    /// Registers a sender client `clientID` for `miniApps` in `demo`; its secret.
    static func addSender(_ kit: OAuthTestKit, clientID: String = "shop-backend", miniApps: [String] = ["shop"]) async throws
        -> String
    {
        let secret = ClientSecret.generate()
        var sender = OAuthClient(
            tenantID: "demo", clientID: clientID, confidential: true, redirectURIs: [],
            allowedScopes: ["notifications:send"])
        sender.grantTypes = [ClientCredentials.grantType]
        sender.miniApps = miniApps
        try sender.validate()
        try await kit.store.addClient(sender, secretHash: secret.hash)
        return secret.secret
    }

    /// A sender token of a new sender client `shop-backend` of `demo`.
    static func senderToken(_ kit: OAuthTestKit, port: Int) async throws -> String {
        let secret = try await addSender(kit)
        let issued = try await token(port: port, basic: ("shop-backend", secret), form: "grant_type=client_credentials")
        guard case .string(let token)? = issued.json["access_token"] else { throw CancellationError() }
        return token
    }

    @Test("a sender gets a Bearer token (no refresh, no ID token) with its sender scope; /me refuses it; the discovery names the grant")
    func senderToken() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let secret = try await Self.addSender(kit)
            let issued = try await Self.token(
                port: port, basic: ("shop-backend", secret), form: "grant_type=client_credentials")
            #expect(issued.status == 200, "\(issued.json)")
            #expect(issued.json["token_type"] == .string("Bearer") && issued.json["scope"] == .string("notifications:send"))
            #expect(issued.json["refresh_token"] == nil && issued.json["id_token"] == nil)
            guard case .string(let token)? = issued.json["access_token"] else { throw CancellationError() }

            let issuer = "http://127.0.0.1:\(port)/t/demo"
            let claims = try await harness.bootstrap.services.auth.verifier.verifySenderToken(
                token, issuer: issuer, tenantID: "demo")
            #expect(claims.clientID == "shop-backend" && claims.miniApps == ["shop"] && claims.scopes == ["notifications:send"])
            // Not a user: user endpoints refuse it, and a user's token is no sender token.
            #expect(try await kit.me(authorization: "Bearer \(token)").status == 401)
            let user = try await kit.tokens()
            await #expect(throws: TokenRejection.self) {
                try await harness.bootstrap.services.auth.verifier.verifySenderToken(
                    user.accessToken, issuer: issuer, tenantID: "demo")
            }

            // Refusals: a scope that is not a sender scope, a wrong secret, a public client.
            let openid = try await Self.token(
                port: port, basic: ("shop-backend", secret), form: "grant_type=client_credentials&scope=openid")
            #expect(openid.status == 400 && openid.json["error"] == .string("invalid_scope"))
            let wrong = try await Self.token(port: port, basic: ("shop-backend", "nope"), form: "grant_type=client_credentials")
            #expect(wrong.status == 401 && wrong.json["error"] == .string("invalid_client"))
            // RFC 6749 §5.2: authenticated with the Authorization header, so the 401 names its
            // scheme (issue 62 §3), at the token endpoint and at bc-authorize alike; with the
            // secret in the form, no challenge.
            #expect(wrong.challenge == #"Basic realm="demo", charset="UTF-8""#)
            let backchannel = try await Self.token(
                port: port, basic: ("shop-backend", "nope"), form: "scope=openid&login_hint=x", endpoint: "bc-authorize")
            #expect(backchannel.status == 401 && backchannel.json["error"] == .string("invalid_client"))
            #expect(backchannel.challenge == #"Basic realm="demo", charset="UTF-8""#)
            let inForm = try await Self.token(
                port: port, basic: nil, form: "grant_type=client_credentials&client_id=shop-backend&client_secret=nope")
            #expect(inForm.status == 401 && inForm.challenge == nil)
            let publicClient = try await Self.token(
                port: port, basic: nil, form: "grant_type=client_credentials&client_id=\(kit.clientID)")
            #expect(publicClient.status == 400 && publicClient.json["error"] == .string("unauthorized_client"))

            let discovery = try await client.getOpenIDConfiguration(path: .init(tenant: "demo")).ok.body.json
            #expect(discovery.grantTypesSupported?.contains("client_credentials") == true)
        }
    }

    @Test("registration rules: a sender must be confidential, name a mini app and a sender scope, and stand alone")
    func registrationRules() throws {
        func sender(_ change: (inout OAuthClient) -> Void) -> OAuthClient {
            var client = OAuthClient(
                tenantID: "demo", clientID: "s", confidential: true, redirectURIs: [], allowedScopes: ["notifications:send"])
            client.grantTypes = [ClientCredentials.grantType]
            client.miniApps = ["shop"]
            change(&client)
            return client
        }
        try sender { _ in }.validate()
        #expect(throws: AuthStoreError.self) { try sender { $0.confidential = false }.validate() }
        #expect(throws: AuthStoreError.self) { try sender { $0.miniApps = [] }.validate() }
        #expect(throws: AuthStoreError.self) { try sender { $0.allowedScopes = ["openid"] }.validate() }
        #expect(throws: AuthStoreError.self) {
            try sender { $0.grantTypes = ["client_credentials", "authorization_code"] }.validate()
        }
    }

    /// A `private_key_jwt` assertion signed with `key`.
    static func assertion(
        key: P256.Signing.PrivateKey, clientID: String = "jwt-backend", audience: String, lifetime: Double = 60,
        jti: String = UUID().uuidString
    ) throws -> String {
        let now = Date().timeIntervalSince1970
        return try JWS.sign(
            claims: [
                "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience),
                "iat": .number(now.rounded(.down)), "exp": .number((now + lifetime).rounded(.down)), "jti": .string(jti),
            ], typ: "JWT", kid: "k1", key: key)
    }

    @Test("private_key_jwt: a signed assertion gets a sender token once per jti; wrong audience, expired, another key or a secret are invalid_client")
    func privateKeyJWT() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let key = P256.Signing.PrivateKey()
            var jwk = JWK.publicJWK(key.publicKey)
            jwk["kid"] = "k1"
            var sender = OAuthClient(
                tenantID: "demo", clientID: "jwt-backend", confidential: true, redirectURIs: [],
                allowedScopes: ["notifications:send"])
            sender.grantTypes = [ClientCredentials.grantType]
            sender.miniApps = ["shop"]
            sender.jwks = .object(["keys": .array([.object(jwk)])])
            try sender.validate()
            try await kit.store.addClient(sender, secretHash: ClientSecret.generate().hash)
            let audience = "http://127.0.0.1:\(port)/t/demo/oauth2/token"
            func form(_ assertion: String) -> String {
                "grant_type=client_credentials&client_assertion_type="
                    + "urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=" + assertion
            }
            let good = try Self.assertion(key: key, audience: audience)
            let issued = try await Self.token(port: port, basic: nil, form: form(good))
            #expect(issued.status == 200 && issued.json["scope"] == .string("notifications:send"), "\(issued.json)")
            let replayed = try await Self.token(port: port, basic: nil, form: form(good))
            #expect(replayed.status == 401 && replayed.json["error"] == .string("invalid_client"))
            let issuer = try await Self.token(
                port: port, basic: nil, form: form(try Self.assertion(key: key, audience: "http://127.0.0.1:\(port)/t/demo")))
            #expect(issuer.status == 200, "the issuer is an accepted audience too")
            for refused in [
                try Self.assertion(key: key, audience: "https://elsewhere.example/token"),
                try Self.assertion(key: key, audience: audience, lifetime: -120),
                try Self.assertion(key: key, audience: audience, lifetime: 3600),
                try Self.assertion(key: P256.Signing.PrivateKey(), audience: audience),
                try Self.assertion(key: key, clientID: "shop-backend", audience: audience),
            ] {
                let answer = try await Self.token(port: port, basic: nil, form: form(refused))
                #expect(answer.status == 401 && answer.json["error"] == .string("invalid_client"), "\(answer.json)")
            }
            let wrongType = try await Self.token(
                port: port, basic: nil,
                form: "grant_type=client_credentials&client_assertion_type=x&client_assertion=" + good)
            #expect(wrongType.status == 401)
            // A client registered with keys never authenticates with a secret.
            let secret = try await Self.token(port: port, basic: ("jwt-backend", "anything"), form: "grant_type=client_credentials")
            #expect(secret.status == 401)
            let discovery = try await TestHTTP.noRedirects.get(
                url: "http://127.0.0.1:\(port)/t/demo/.well-known/openid-configuration").get()
            #expect(discovery.body.map { String(buffer: $0) }?.contains("private_key_jwt") == true)
        }
    }
}
