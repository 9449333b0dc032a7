import Foundation
@testable import GatewayCore
@testable import GatewaySQLite
import Testing

/// Issue 15, item 2: the token endpoint's decisions (grant dispatch, DPoP binding,
/// introspection's access-token vs mini-app-token answer) in GatewayCore, without HTTP.
@Suite("Token endpoint rules")
struct TokenEndpointRulesTests {
    static let issuer = "https://gw.example/t/acme"
    static let redirect = "https://app.example/callback"

    struct Fixture {
        let folder: TemporaryFolder
        let server: AuthorizationServer
        let keys: KeyRing
        let client: OAuthClient
        let tenant: Tenant

        init() async throws {
            folder = try TemporaryFolder()
            let tenants = try Fixtures.store(folder)
            tenant = Tenant(id: "acme", displayName: "Acme")
            _ = try await tenants.create(tenant, actor: "test")
            let store = SQLiteAuthStore(tenants: tenants)
            server = AuthorizationServer(
                store: store, cache: MemoryCache(), hasher: PasswordHasher(logN: 10), memo: nil)
            keys = KeyRing(store: store)
            client = OAuthClient(
                tenantID: "acme", clientID: "app", redirectURIs: [TokenEndpointRulesTests.redirect],
                postLogoutRedirectURIs: ["https://app.example/bye"])
            try await store.addClient(client, secretHash: nil)
            try await store.addUser(
                LocalUser(
                    tenantID: "acme", username: "alice", subject: "user-1",
                    passwordHash: try PasswordHasher(logN: 10).hash("a long password")))
        }

        /// A fresh authorization code for `user-1` and its PKCE verifier.
        func code() async throws -> (code: String, verifier: String) {
            let verifier = String(repeating: "v", count: 43)
            let code = try await server.codes.issue(
                AuthorizationGrant(
                    tenantID: "acme", clientID: "app", redirectURI: TokenEndpointRulesTests.redirect,
                    codeChallenge: PKCE.challenge(for: verifier),
                    subject: "user-1", scope: "openid", nonce: nil, authTime: Int64(Date().timeIntervalSince1970)))
            return (code, verifier)
        }

        /// Tokens for a fresh code, bound to `dpopJKT` when given.
        func tokens(dpopJKT: String? = nil) async throws -> TokenResponse {
            let (code, verifier) = try await code()
            return try await server.token(
                for: TokenGrant(
                    type: "authorization_code", code: code, redirectURI: TokenEndpointRulesTests.redirect,
                    codeVerifier: verifier),
                client: client, issuer: TokenEndpointRulesTests.issuer, dpopJKT: dpopJKT)
        }
    }

    /// Issue 32's profile: a refresh token no family holds went on to draw the next token and
    /// run the rotation's write transaction before it was refused, so junk tokens held SQLite's
    /// write lock. Here another connection holds that lock for 3 s: the refusal must not wait.
    @Test("an unknown refresh token is refused on a read, without waiting for the write lock")
    func unknownRefreshTokenTakesNoWrite() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        _ = try await fx.tokens()  // the tables hold a family
        let other = try Fixtures.store(fx.folder)
        let (held, holding) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let lock = Task.detached {
            try await other.pool.write { db in
                try db.execute(sql: "UPDATE store_state SET change_counter = change_counter WHERE id = 1")
                holding.yield()
                // Held on GRDB's writer thread (not the cooperative pool) until the refusal came,
                // at most 3 s (the old code waited for it: 3.04 s).
                _ = release.wait(timeout: .now() + 3)
            }
        }
        for await _ in held { break }
        let started = ContinuousClock.now
        await #expect(throws: OAuthError.self) {
            _ = try await fx.server.token(
                for: TokenGrant(type: "refresh_token", refreshToken: Base64URL.random(byteCount: 32)),
                client: fx.client, issuer: Self.issuer, dpopJKT: nil)
        }
        let took = ContinuousClock.now - started
        #expect(took < .seconds(1), "\(took): the refusal waited for the write lock")
        release.signal()
        try await lock.value
    }

    /// Issue 32: refusing the largest form the token endpoint accepts (8 KiB of refresh token)
    /// cost a SHA-256 of it and a store read. Every refresh token this server issues is 43
    /// base64url characters; anything else is refused before either. Here the refresh-token
    /// table is gone, so any lookup fails with the database's error instead.
    @Test("a refresh token of a shape never issued is refused invalid_grant without a lookup")
    func malformedRefreshTokenTakesNoLookup() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        let other = try Fixtures.store(fx.folder)
        try await other.pool.write { db in try db.execute(sql: "DROP TABLE auth_refresh_tokens") }
        func refresh(_ token: String) async throws {
            _ = try await fx.server.token(
                for: TokenGrant(type: "refresh_token", refreshToken: token), client: fx.client,
                issuer: Self.issuer, dpopJKT: nil)
        }
        let issuedShape = Base64URL.random(byteCount: 32)
        for junk in [
            String(repeating: "x", count: 8_000), "short", issuedShape + "=", String(issuedShape.dropLast()) + "+",
            String(issuedShape.dropLast()), String(issuedShape.dropLast()) + "é",
        ] {
            do {
                try await refresh(junk)
                Issue.record("\(junk.prefix(50)) was accepted")
            } catch let error as OAuthError {
                #expect(error.code == "invalid_grant", "\(junk.prefix(50)): \(error)")
            }
        }
        // A token of the issued shape is looked up: the missing table answers.
        do {
            try await refresh(issuedShape)
            Issue.record("accepted")
        } catch is OAuthError {
            Issue.record("a token of the issued shape was refused without a lookup")
        } catch {}
    }

    @Test(
        "grant dispatch: authorization_code and refresh_token are answered; a missing grant, code or refresh token is invalid_request; client_credentials only for senders; others are unsupported_grant_type"
    )
    func grantDispatch() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        let tokens = try await fx.tokens()
        #expect(tokens.tokenType == "Bearer")
        let refresh = tokens.refreshToken
        let refreshed = try await fx.server.token(
            for: TokenGrant(type: "refresh_token", refreshToken: refresh), client: fx.client, issuer: Self.issuer,
            dpopJKT: nil)
        #expect(refreshed.accessToken != tokens.accessToken)

        for (grant, error) in [
            (TokenGrant(type: nil), "invalid_request"), (TokenGrant(type: "authorization_code"), "invalid_request"),
            (TokenGrant(type: "refresh_token", refreshToken: ""), "invalid_request"),
            (TokenGrant(type: "password"), "unsupported_grant_type"),
            (TokenGrant(type: "client_credentials"), "unauthorized_client"),
            (TokenGrant(type: "urn:ietf:params:oauth:grant-type:device_code"), "unsupported_grant_type"),
        ] {
            await #expect {
                try await fx.server.token(for: grant, client: fx.client, issuer: Self.issuer, dpopJKT: nil)
            } throws: { ($0 as? OAuthError)?.code == error }
        }
    }

    @Test(
        "DPoP binding: no proof is no binding unless required; a required or malformed proof is invalid_dpop_proof; a thumbprint binds the tokens"
    )
    func dpopBinding() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        #expect(try await fx.server.proofThumbprint(nil, url: Self.issuer + "/oauth2/token", required: false) == nil)
        await #expect {
            try await fx.server.proofThumbprint(nil, url: Self.issuer + "/oauth2/token", required: true)
        } throws: { ($0 as? OAuthError)?.code == "invalid_dpop_proof" }
        await #expect {
            try await fx.server.proofThumbprint("not-a-jwt", url: Self.issuer + "/oauth2/token", required: false)
        } throws: { ($0 as? OAuthError)?.code == "invalid_dpop_proof" }

        let bound = try await fx.tokens(dpopJKT: "thumbprint-1")
        #expect(bound.tokenType == "DPoP")
        guard
            case .accessToken(let claims) = await fx.server.introspect(
                bound.accessToken, issuer: Self.issuer, tenantID: "acme")
        else {
            Issue.record("a bound access token is not active")
            return
        }
        #expect(claims.dpopJKT == "thumbprint-1")
    }

    @Test(
        "introspection: this tenant's access token first, then its mini-app token; anything else, another tenant's or a revoked one is inactive"
    )
    func introspection() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        let tokens = try await fx.tokens()
        guard
            case .accessToken(let claims) = await fx.server.introspect(
                tokens.accessToken, issuer: Self.issuer, tenantID: "acme")
        else {
            Issue.record("the access token is not active")
            return
        }
        #expect(claims.subject == "user-1" && claims.clientID == "app")

        let minter = SigningKeyTokenMinter(keys: fx.keys, issuer: { "https://gw.example/t/\($0)" })
        let miniApp = try await minter.mint(
            tenant: fx.tenant, subject: "user-1", miniAppID: "hello", audience: "rae", scopes: ["a"],
            lifetime: .seconds(60))
        guard
            case .miniAppToken(let mini) = await fx.server.introspect(
                miniApp.token, issuer: Self.issuer, tenantID: "acme")
        else {
            Issue.record("the mini-app token is not active")
            return
        }
        #expect(mini.miniAppID == "hello" && mini.audience == "rae")

        #expect(await fx.server.introspect("garbage", issuer: Self.issuer, tenantID: "acme") == .inactive)
        #expect(
            await fx.server.introspect(tokens.accessToken, issuer: "https://gw.example/t/other", tenantID: "other")
                == .inactive)
        try await fx.server.tokens.revoke(
            token: tokens.accessToken, client: fx.client, verifier: fx.server.verifier, issuer: Self.issuer)
        #expect(await fx.server.introspect(tokens.accessToken, issuer: Self.issuer, tenantID: "acme") == .inactive)
    }

    @Test(
        "post-logout redirect: only a URI registered for the named client, with state; no client or an unregistered URI is refused"
    )
    func postLogoutRedirect() async throws {
        let fx = try await Fixture()
        defer { fx.folder.remove() }
        let logout = fx.server.logout
        #expect(
            try await logout.postLogoutRedirect(
                "https://app.example/bye", state: "s 1", hint: nil, clientID: "app", tenantID: "acme")
                == "https://app.example/bye?state=s%201")
        #expect(
            try await logout.postLogoutRedirect(
                "https://evil.example/bye", state: nil, hint: nil, clientID: "app", tenantID: "acme") == nil)
        #expect(
            try await logout.postLogoutRedirect(
                "https://app.example/bye", state: nil, hint: nil, clientID: nil, tenantID: "acme") == nil)
        #expect(
            try await logout.postLogoutRedirect(
                "https://app.example/bye", state: nil, hint: nil, clientID: "app", tenantID: "other") == nil)
    }
}
