import AsyncHTTPClient
import Foundation
import NIOPosix
import GatewayAPI
import GatewayCore
import GatewayServer
import HTTPTypes
import NIOCore
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Testing

/// Drives the authorization server of a live harness gateway: registers a client and a
/// user, signs in natively (JSON) or through the HTML form, and exchanges codes.
struct OAuthTestKit {
    let harness: GatewayHarness
    let client: Client
    let port: Int
    var tenant = "demo"
    var clientID = "test-app"
    var redirectURI = "com.example.app:/callback"
    // Unique per kit: login-throttle counters live in the shared Redis of the test run.
    var username = "alice-" + UUID().uuidString.prefix(8).lowercased()
    var password = "correct horse battery"

    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    var base: String { "http://127.0.0.1:\(port)" }
    var issuer: String { "\(harness.configuration.publicBaseURL ?? base)/t/\(tenant)" }
    var store: any AuthStore { harness.bootstrap.authStore }

    /// Moves the kit to a new tenant of its own where people may sign up (call before
    /// ``setUp(_:)``): per-tenant counters in the shared Redis (sign-ups per address) start at
    /// zero for it, whatever other tests and earlier runs spent.
    /// Uses a fresh tenant with `journeys` whose courier sends through the SMTP server on
    /// loopback at `smtpPort` (plain) and the fake Twilio `sms` (to +81 numbers); call before
    /// ``setUp(_:)``.
    mutating func useTenant(journeys: JourneySettings, smtpPort: Int, sms: SMSFake) async throws {
        var fresh = Tenant(id: "cr-" + UUID().uuidString.prefix(8).lowercased(), displayName: "Acme")
        fresh.journeys = journeys
        fresh.courier = CourierSettings(
            smtp: SMTPRelay(url: "smtp://127.0.0.1:\(smtpPort)", from: "no-reply@acme.example", startTLS: .off),
            sms: SMSSettings(
                provider: .twilio, url: sms.url, accountSid: SMSFake.accountSid,
                authToken: SecretValue(SMSFake.authToken), from: "+15005550006", allowedCountries: ["81"]))
        try await harness.createTenant(fresh, signIn: false)
        tenant = fresh.id
    }

    /// A fresh tenant with `journeys` and the relying party `passkeys` (no courier).
    mutating func useTenant(journeys: JourneySettings, passkeys: PasskeySettings) async throws {
        var fresh = Tenant(id: "pk-" + UUID().uuidString.prefix(8).lowercased(), displayName: "Acme")
        (fresh.journeys, fresh.passkeys) = (journeys, passkeys)
        try await harness.createTenant(fresh, signIn: false)
        tenant = fresh.id
    }

    mutating func useTenantWithSignUp() async throws {
        var fresh = Tenant(id: "su-" + UUID().uuidString.prefix(8).lowercased(), displayName: "Sign-up test")
        fresh.journeys.signUp = true
        try await harness.createTenant(fresh, signIn: false)
        tenant = fresh.id
    }

    /// Gives the kit's user a TOTP second factor; returns its Base32 secret.
    func addSecondFactor() async throws -> String {
        let secret = TOTP.newSecret()
        var user = try #require(try await store.user(tenantID: tenant, username: username))
        user.totpSecret = SecretValue(secret)
        try await store.updateUser(user)
        return secret
    }

    /// Registers the client (with `configure`) and user. The client is the tenant's host app
    /// (first-party, holding the host app's surface) unless `configure` says otherwise.
    func setUp(_ configure: (inout OAuthClient) -> Void = { _ in }) async throws {
        var c = OAuthClient(
            tenantID: tenant, clientID: clientID, redirectURIs: [redirectURI, "http://127.0.0.1/callback"],
            postLogoutRedirectURIs: ["com.example.app:/bye"])
        c.firstParty = true
        configure(&c)
        if c.defaultScopes == nil { c.defaultScopes = OAuthClient.newDefaultScopes(firstParty: c.isFirstParty) }
        try await store.addClient(c, secretHash: nil)
        if try await store.user(tenantID: tenant, username: username) == nil {
            // scrypt off the cooperative pool, as the gateway hashes (its stack is small).
            let password = password
            let hash = try await NIOThreadPool.singleton.runIfActive { try PasswordHasher(logN: 12).hash(password) }
            try await store.addUser(
                LocalUser(
                    tenantID: tenant, username: username, name: "Alice", email: "alice@example.test",
                    picture: "https://example.test/a.png", passwordHash: hash))
        }
    }

    func form(
        challenge: String? = OAuthTestKit.challenge, method: String? = "S256", redirect: String? = nil,
        username: String? = nil, password: String? = nil,
        state: String = "st-1", nonce: String = "n-1", clientID: String? = nil, requestURI: String? = nil
    ) -> Components.Schemas.AuthorizeForm {
        .init(
            responseType: "code", clientId: clientID ?? self.clientID, redirectUri: redirect ?? redirectURI,
            scope: "openid profile email", state: state, nonce: nonce,
            codeChallenge: challenge, codeChallengeMethod: method, requestUri: requestURI,
            username: username ?? self.username, password: password ?? self.password)
    }

    /// Native sign-in; returns the `redirect_to` URL.
    func nativeLogin(_ form: Components.Schemas.AuthorizeForm) async throws -> Operations.PostAuthorize.Output {
        try await client.postAuthorize(
            path: .init(tenant: tenant), headers: .init(accept: [.init(contentType: .json)]),
            body: .urlEncodedForm(form))
    }

    /// Native sign-in expected to succeed; returns the code.
    func code(_ form: Components.Schemas.AuthorizeForm? = nil) async throws -> String {
        let out = try await nativeLogin(form ?? self.form())
        let location = try out.ok.body.json.redirectTo
        let items = URLComponents(string: location)?.queryItems ?? []
        #expect(items.first { $0.name == "iss" }?.value == issuer)
        #expect(items.first { $0.name == "state" }?.value == "st-1")
        return try #require(items.first { $0.name == "code" }?.value)
    }

    func exchange(
        _ code: String, verifier: String? = OAuthTestKit.verifier, redirect: String? = nil, dpop: String? = nil,
        clientID: String? = nil
    ) async throws -> Operations.PostToken.Output {
        try await client.postToken(
            path: .init(tenant: tenant), headers: .init(dPoP: dpop),
            body: .urlEncodedForm(
                .init(
                    grantType: "authorization_code", code: code, redirectUri: redirect ?? redirectURI,
                    codeVerifier: verifier, clientId: clientID ?? self.clientID)))
    }

    func refresh(_ token: String, dpop: String? = nil) async throws -> Operations.PostToken.Output {
        try await client.postToken(
            path: .init(tenant: tenant), headers: .init(dPoP: dpop),
            body: .urlEncodedForm(.init(grantType: "refresh_token", clientId: clientID, refreshToken: token)))
    }

    func tokens(dpop: String? = nil) async throws -> Components.Schemas.TokenResponse {
        try await exchange(try await code(), dpop: dpop).ok.body.json
    }

    /// The generated client with an `Authorization` (and optional `DPoP`) header on every request.
    func authorizedClient(_ authorization: String, dpop: String? = nil) -> Client {
        Client(
            serverURL: URL(string: base)!,
            transport: AsyncHTTPClientTransport(configuration: .init(client: TestHTTP.noRedirects)),
            middlewares: [HeaderMiddleware(authorization: authorization, dpop: dpop)])
    }

    /// `GET /v1/me` with a raw Authorization header value.
    func me(
        authorization: String?, dpop: String? = nil, tenant: String? = nil
    ) async throws -> (status: Int, wwwAuthenticate: String?, body: String) {
        var request = HTTPClientRequest(url: "\(base)/t/\(tenant ?? self.tenant)/v1/me")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        if let dpop { request.headers.add(name: "DPoP", value: dpop) }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "WWW-Authenticate"), String(buffer: body))
    }

    /// The bad-request OAuth error code of a token answer.
    static func errorCode(_ out: Operations.PostToken.Output) throws -> String {
        switch out {
        case .badRequest(let r): return try r.body.json.error
        case .unauthorized(let r): return try r.body.json.error
        default: Issue.record("expected an error, got \(out)"); return ""
        }
    }
}

struct HeaderMiddleware: ClientMiddleware {
    let authorization: String
    let dpop: String?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = authorization
        if let dpop { request.headerFields[HTTPField.Name("DPoP")!] = dpop }
        return try await next(request, body, baseURL)
    }
}

/// Decodes a JWT's payload (no verification) for assertions.
func jwtClaims(_ token: String) throws -> [String: JSONValue] {
    try #require(try JSONValue.decode(try JWS.parse(token).payload).objectValue)
}

func jwtHeader(_ token: String) throws -> [String: JSONValue] {
    try JWS.parse(token).header
}

extension Components.Schemas.TokenResponse {
    /// The refresh token of an authorization_code or refresh_token answer (always present
    /// there; optional in the schema because a mini-app token from token exchange has none).
    var issuedRefreshToken: String { refreshToken ?? "" }
    /// The ID token of an authorization_code or refresh_token answer.
    var issuedIDToken: String { idToken ?? "" }
}
