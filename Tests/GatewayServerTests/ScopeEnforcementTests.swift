import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// Each token opens only its own doors (issue 62): every bearer operation of the contract,
/// called with the tokens of three kinds of client over real sockets, answers 403
/// `insufficient_scope` exactly where the token lacks the scope its `security` names. The
/// other two kinds are checked where they are made: a token-exchange client's
/// (FederationTests), and mini-app tokens from the endpoint and from token exchange, which
/// open no door at all (AccessTokenEndpointTests, ``expectNoDoors(_:kind:base:tenant:)``).
@Suite("Scopes per operation", .serialized)
struct ScopeEnforcementTests {
    /// A value for each path parameter of a bearer operation, valid for its pattern.
    static let parameterValues = [
        "tenant": "demo", "id": "hello", "versionId": "v1", "code": "preview-1", "deviceId": "dev_unknown",
        "messageId": "msg_unknown", "userId": "someone", "key": "greeting",
    ]

    /// Bodies other than `{}`: what passes the edge without changing anything the test goes on
    /// to use (a wrong password does not delete the account; a recent sign-in would).
    static let bodies = ["deleteAccount": #"{"password": "not the password"}"#]

    /// One call of `operation` with `token`: the status, the problem's `code` and `WWW-Authenticate`.
    static func call(
        _ operation: ContractOperation, token: String, base: String, tenant: String = "demo"
    ) async throws -> (status: Int, code: String?, challenge: String?) {
        var path = operation.template.replacingOccurrences(of: "{tenant}", with: tenant)
        for (name, value) in parameterValues { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
        var request = HTTPClientRequest(url: base + path)
        request.method = HTTPMethod(rawValue: operation.method.rawValue)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if operation.method == .post || operation.method == .put {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: bodies[operation.id] ?? "{}"))
        }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(15))
        let body = try await response.body.collect(upTo: 1 << 22)
        let json = (try? JSONValue.decode(Data(buffer: body)).objectValue) ?? [:]
        return (Int(response.status.code), json["code"]?.stringValue, response.headers.first(name: "WWW-Authenticate"))
    }

    /// The operations a token with `scopes` may call; every other bearer operation must refuse it.
    static func expectDoors(
        _ token: String, scopes: Set<String>, kind: String, base: String, tenant: String = "demo"
    ) async throws {
        let operations = ContractOperation.all.filter { $0.facts.security == .bearer }
        #expect(operations.count > 30, "the contract's bearer operations")
        for operation in operations {
            let answer = try await call(operation, token: token, base: base, tenant: tenant)
            let place = "\(kind): \(operation.method.rawValue) \(operation.template)"
            if operation.scopes.allSatisfy(scopes.contains) {
                // Past the edge: a tenant with no platform configured answers what that says.
                let upstream = answer.code == "upstream_not_configured"
                #expect(
                    answer.status != 401 && answer.code != "insufficient_scope" && (answer.status < 500 || upstream),
                    "\(place) → \(answer)")
            } else {
                let needed = try #require(operation.scopes.first, "\(place) names no scope")
                #expect(answer.status == 403 && answer.code == "insufficient_scope", "\(place) → \(answer)")
                #expect(answer.challenge == #"Bearer error="insufficient_scope", scope="\#(needed)""#, "\(place)")
            }
        }
    }

    /// A mini app's token (for its own backend: audience the mini app's, from the access-token
    /// endpoint or RFC 8693 token exchange) opens no door of the gateway's: every bearer
    /// operation refuses it as a token that is not its own (401 `invalid_token`, RFC 6750
    /// §3.1), never 2xx. (AccessTokenEndpointTests calls this with both kinds.)
    static func expectNoDoors(_ token: String, kind: String, base: String, tenant: String) async throws {
        for operation in ContractOperation.all where operation.facts.security == .bearer {
            let answer = try await call(operation, token: token, base: base, tenant: tenant)
            #expect(
                answer.status == 401 && answer.challenge?.contains(#"error="invalid_token""#) == true,
                "\(kind): \(operation.method.rawValue) \(operation.template) → \(answer)")
        }
    }

    @Test("host app, third-party web client and CIBA relying party: each token opens only its own operations")
    func everyBearerOperationByTokenKind() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            // The host app: first-party, holding the host app's surface (the kit's default).
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let host = try await kit.tokens()
            let hostScopes = Set(host.scope.split(separator: " ").map(String.init))
            #expect(hostScopes == Set(["openid", "profile", "email"] + APIScope.hostApp), "\(host.scope)")
            let hostClaims = try jwtClaims(host.accessToken)
            #expect(hostClaims["client_id"]?.stringValue == kit.clientID && hostClaims["scope"]?.stringValue == host.scope)

            // A partner's website ("sign in with the super app"): registered as `client add` would.
            var webPatch = ClientPatch()
            webPatch.redirectURIs = ["https://partner.example/cb", "http://127.0.0.1/callback"]
            let web = webPatch.registering(tenantID: kit.tenant, clientID: "webapp", confidential: false)
            #expect(web.defaultScopes == ["openid", "profile", "email"] && web.hostAppScopes.isEmpty)
            try web.validate()
            try await kit.store.addClient(web, secretHash: nil)
            // The user allowed it earlier (a third party signs in only with consent).
            let subject = try #require(try await kit.store.user(tenantID: kit.tenant, username: kit.username)).subject
            try await kit.store.grant(Set(web.defaultScopes ?? []), tenantID: kit.tenant, subject: subject, clientID: "webapp", at: Date())
            var webKit = kit
            webKit.clientID = "webapp"
            webKit.redirectURI = "https://partner.example/cb"
            let webTokens = try await webKit.tokens()
            #expect(webTokens.scope == "openid profile email")

            // A CIBA relying party (a TV) whose request the user approves on the host app.
            let (secret, hash) = ClientSecret.generate()
            var tv = OAuthClient(tenantID: kit.tenant, clientID: "tv", confidential: true, redirectURIs: [])
            tv.grantTypes = [BackchannelRules.grantType]
            tv.backchannelMode = .poll
            try tv.validate()
            try await kit.store.addClient(tv, secretHash: hash)
            let world = BackchannelTests.World(kit: kit, clientID: "tv", secret: secret, hostToken: host.accessToken)
            let asked = try await world.ask()
            let id = try #require(asked.json["auth_req_id"]?.stringValue, "\(asked.json)")
            #expect(try await world.host(.POST, "/\(id)/approve", json: "{}").status == 204)
            let polled = try await world.poll(id)
            let tvToken = try #require(polled.json["access_token"]?.stringValue, "\(polled.json)")
            #expect(polled.json["scope"]?.stringValue == "openid profile")

            try await Self.expectDoors(host.accessToken, scopes: hostScopes, kind: "host app", base: kit.base)
            try await Self.expectDoors(webTokens.accessToken, scopes: ["openid", "profile", "email"], kind: "web", base: kit.base)
            try await Self.expectDoors(tvToken, scopes: ["openid", "profile"], kind: "ciba", base: kit.base)

            // The TV's token cannot list, approve or deny: its pending request stays pending.
            let second = try #require(try await world.ask().json["auth_req_id"]?.stringValue)
            for (method, path) in [(HTTPMethod.GET, ""), (.POST, "/\(second)/approve"), (.POST, "/\(second)/deny")] {
                let refused = try await world.host(method, path, json: method == .POST ? "{}" : nil, token: tvToken)
                #expect(refused.status == 403 && refused.json["scope"]?.stringValue == "sign-in-requests", "\(refused)")
            }
            let stillPending = try await world.host(.GET, "")
            #expect(stillPending.json["items"]?.arrayValue?.count == 1, "\(stillPending.json)")
        }
    }

    @Test("a client's default and optional scopes decide a grant; sign-in requests only for the host app's own sign-in")
    func grantsFollowTheClientsScopes() throws {
        var client = ClientPatch().registering(tenantID: "demo", clientID: "partner", confidential: false)
        client.redirectURIs = ["https://partner.example/cb"]
        client.allowedScopes = ["offline_access", APIScope.messages]
        // Defaults come unasked; optional ones only when asked; anything else is invalid_scope.
        #expect(try client.grantedScopes(requested: ["openid"], origin: .userSignIn) == ["openid", "profile", "email"])
        #expect(
            try client.grantedScopes(requested: [APIScope.messages], origin: .userSignIn)
                == [APIScope.messages, "openid", "profile", "email"])
        #expect(throws: OAuthError.self) { try client.grantedScopes(requested: [APIScope.host], origin: .userSignIn) }
        // A third party may not even be registered for sign-in requests.
        client.defaultScopes = APIScope.hostApp
        #expect(throws: AuthStoreError.self) { try client.validate() }
        // The host app holds them from its user's own sign-in, never from CIBA or token exchange.
        client.firstParty = true
        try client.validate()
        #expect(try client.grantedScopes(requested: [], origin: .userSignIn).contains(APIScope.signInRequests))
        for origin in [GrantOrigin.backchannel, .tokenExchange] {
            let granted = try client.grantedScopes(requested: [], origin: origin)
            #expect(!granted.contains(APIScope.signInRequests) && granted.contains(APIScope.host))
            #expect(throws: OAuthError.self) {
                try client.grantedScopes(requested: [APIScope.signInRequests], origin: origin)
            }
        }
        // A trusted issuer's claimed scopes never widen what its tokens open.
        #expect(
            APIScope.trustedIssuerScope(claimed: ["email", "sign-in-requests", "admin"])
                == "openid email host miniapp-data messages devices")
    }

    @Test("a token holds a scope only as a whole word of its scope claim")
    func holdsWholeWords() throws {
        func claims(_ scope: String) -> AccessTokenClaims {
            AccessTokenClaims(
                issuer: "i", subject: "s", clientID: "c", tenantID: "t", scope: scope, jti: "j", issuedAt: Date(),
                expiresAt: Date())
        }
        #expect(claims("openid host messages").holds("host") && claims("  messages  host ").holds("host"))
        for scope in ["", "openid", "hostile", "openid xhost", "host-app", "sign-in-requests-x"] {
            #expect(!claims(scope).holds("host") && !claims(scope).holds("sign-in-requests"), "\(scope)")
        }
        let approve = try #require(ContractOperation.named("approveSignInRequest"))
        #expect(approve.missingScope(of: claims("openid host devices")) == "sign-in-requests")
        #expect(approve.missingScope(of: claims("openid sign-in-requests")) == nil)
    }

    @Test("the contract's scope vocabulary is the one the authorization server grants, and discovery lists it")
    func vocabularyMatchesTheContract() async throws {
        let contract = Set(ContractOperation.scopeVocabulary.map(\.name))
        #expect(contract == Set(APIScope.userScopes).union(ClientCredentials.senderScopes))
        let named = Set(ContractOperation.all.flatMap(\.scopes))
        #expect(named.isSubset(of: contract))
        #expect(Set(APIScope.hostApp).isSubset(of: named))
        try await GatewayHarness.withGateway(useRedis: false) { _, _, port in
            let response = try await TestHTTP.noRedirects.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/t/demo/.well-known/openid-configuration"),
                timeout: .seconds(10))
            let json = try JSONValue.decode(Data(buffer: try await response.body.collect(upTo: 1 << 20)))
            #expect(Set(json.objectValue?["scopes_supported"]?.strings ?? []) == contract)
        }
    }

    @Test("docs/sign-in.md's scope table says what the contract says")
    func documentedTableMatchesTheContract() throws {
        let text = try RepositoryFile.text("docs/sign-in.md")
        let section = try #require(text.components(separatedBy: "## Scopes").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        var documented: [String: Set<String>] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[0].hasPrefix("`") else { continue }
            let scope = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let operations = cells[1].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
            documented[scope] = Set(operations)
        }
        var contract: [String: Set<String>] = [:]
        for operation in ContractOperation.all {
            for scope in operation.scopes { contract[scope, default: []].insert(operation.id) }
        }
        #expect(documented == contract)
    }
}
