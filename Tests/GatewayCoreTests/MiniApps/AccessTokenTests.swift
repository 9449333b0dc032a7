import Crypto
import Foundation
import Testing
@testable import GatewayCore

/// Signs real ES256 JWTs with a throwaway P-256 key, so the service is tested against a
/// minter that really signs.
struct TestES256Minter: MiniAppTokenMinter {
    let key = P256.Signing.PrivateKey()

    func mint(
        tenant: Tenant, subject: String, miniAppID: String, audience: String, scopes: [String], lifetime: Duration
    ) async throws -> MintedToken {
        let jti = UUID().uuidString
        let validUntil = Date().addingTimeInterval(Double(lifetime.components.seconds))
        let header = #"{"alg":"ES256","typ":"JWT"}"#
        let claims: [String: Any] = [
            "iss": "https://gateway.test/t/\(tenant.id)", "sub": subject, "aud": audience, "azp": miniAppID,
            "scope": scopes.joined(separator: " "), "exp": Int(validUntil.timeIntervalSince1970), "jti": jti,
        ]
        let payload = try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
        let input = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(payload)
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        return MintedToken(token: input + "." + Self.base64URL(signature), jti: jti, validUntil: validUntil)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}

@Suite struct AccessTokenTests {
    let manifest = UserStateFixture.manifest
    let token = CustomPermission.accessToken.rawValue

    func denied(_ type: AccessTokenErrorType, _ answer: AccessTokenAnswer) -> Bool {
        if case .denied(let t, let message) = answer { return t == type && !message.isEmpty }
        return false
    }

    @Test func rulesInDocumentedOrder() {
        let ok = AccessTokenRequest(audience: "rae", scopes: ["idinfo_read_openid"])
        #expect(AccessTokenPolicy.evaluate(ok, manifest: manifest, consent: .allowed) == .allowed)
        #expect(denied(.authorizationFailure, AccessTokenPolicy.evaluate(ok, manifest: manifest, consent: .denied)))
        #expect(denied(.authorizationFailure, AccessTokenPolicy.evaluate(ok, manifest: manifest, consent: nil)))
        // Consent is checked first, even for an unknown audience.
        #expect(
            denied(
                .authorizationFailure,
                AccessTokenPolicy.evaluate(.init(audience: "x", scopes: []), manifest: manifest, consent: nil)))
        #expect(
            denied(
                .scopesNotSupported,
                AccessTokenPolicy.evaluate(.init(audience: "rae", scopes: []), manifest: manifest, consent: .allowed)))
        #expect(
            denied(
                .audienceNotSupported,
                AccessTokenPolicy.evaluate(
                    .init(audience: "RAE", scopes: ["idinfo_read_openid"]), manifest: manifest, consent: .allowed)))
        #expect(
            denied(
                .audienceNotSupported,
                AccessTokenPolicy.evaluate(
                    .init(audience: "rae2", scopes: ["idinfo_read_openid"]), manifest: manifest, consent: .allowed)))
        let superset = AccessTokenRequest(
            audience: "rae", scopes: ["idinfo_read_openid", "memberinfo_read_point", "admin"])
        #expect(
            denied(.scopesNotSupported, AccessTokenPolicy.evaluate(superset, manifest: manifest, consent: .allowed)))
        // Scopes of another audience are not borrowed.
        #expect(
            denied(
                .scopesNotSupported,
                AccessTokenPolicy.evaluate(
                    .init(audience: "api-c", scopes: ["idinfo_read_openid"]), manifest: manifest, consent: .allowed)))
        #expect(AccessTokenErrorType.audienceNotSupported.rawValue == "AudienceNotSupportedError")
    }

    @Test(arguments: StoreBackend.available) func consentFlipChangesTheCachedAnswerImmediately(
        backend: StoreBackend
    ) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let (cache, client) = try TestCaches.make()
        defer { if let client { Task { await client.shutdown() } } }
        let consents = fx.stores.consents
        let minter = TestES256Minter()
        let service = MiniAppAccessTokenService(
            consents: consents, answers: AccessTokenAnswerCache(cache: cache), minter: minter)
        let tenant = try await fx.tenant()
        let owner = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-1")
        let request = AccessTokenRequest(audience: "rae", scopes: ["memberinfo_read_point", "idinfo_read_openid"])

        await #expect(throws: AccessTokenDenied.self) {
            try await service.issue(tenant: tenant, userID: "alice", manifest: manifest, request: request)
        }
        try await consents.setConsents([token: .allowed], for: owner)
        let issued = try await service.issue(tenant: tenant, userID: "alice", manifest: manifest, request: request)
        #expect(issued.audience == "rae")
        #expect(issued.validUntil > Date() && issued.validUntil <= Date().addingTimeInterval(301))
        let parts = issued.token.split(separator: ".")
        #expect(parts.count == 3)
        let signatureBytes = try #require(TestES256Minter.decode(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(minter.key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        let payload = try #require(TestES256Minter.decode(parts[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        #expect(claims["azp"] as? String == "app-1")
        #expect(claims["sub"] as? String == "alice")

        // The allowed answer is cached now; denying flips it at once.
        try await consents.setConsents([token: .denied], for: owner)
        let error = await #expect(throws: AccessTokenDenied.self) {
            try await service.issue(tenant: tenant, userID: "alice", manifest: manifest, request: request)
        }
        #expect(error?.type == .authorizationFailure)
        // Another user with the same consent version is not served alice's answer.
        try await consents.setConsents([token: .allowed], for: owner)
        let bob = UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-1")
        try await consents.setConsents([token: .denied], for: bob)
        try await consents.setConsents([token: .allowed, CustomPermission.userName.rawValue: .allowed], for: bob)
        try await consents.setConsents([token: .denied], for: bob)
        #expect(
            try await service.answer(tenant: tenant, userID: "alice", manifest: manifest, request: request) == .allowed)
        #expect(try await consents.consents(of: bob).version == 3)
        #expect(try await consents.consents(of: owner).version == 3)
        #expect(
            try await service.answer(tenant: tenant, userID: "bob", manifest: manifest, request: request) != .allowed)
    }

    @Test(arguments: StoreBackend.available) func manifestChangeChangesTheCachedAnswer(
        backend: StoreBackend
    ) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let (cache, client) = try TestCaches.make()
        defer { if let client { Task { await client.shutdown() } } }
        let consents = fx.stores.consents
        let service = MiniAppAccessTokenService(
            consents: consents, answers: AccessTokenAnswerCache(cache: cache), minter: TestES256Minter())
        let tenant = try await fx.tenant()
        try await consents.setConsents(
            [token: .allowed], for: UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-1"))
        let request = AccessTokenRequest(audience: "api-c", scopes: ["your_service_scope_here"])
        #expect(
            try await service.answer(tenant: tenant, userID: "alice", manifest: manifest, request: request) == .allowed)
        var narrowed = manifest
        narrowed.accessTokenPermissions.removeLast()
        let answer = try await service.answer(tenant: tenant, userID: "alice", manifest: narrowed, request: request)
        #expect(denied(.audienceNotSupported, answer))
    }

    @Test(
        "issued token ids are recorded; revokeAll revokes the live ones of that user and mini app only",
        arguments: StoreBackend.available)
    func revokeAll(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let (cache, client) = try TestCaches.make()
        defer { if let client { Task { await client.shutdown() } } }
        let consents = fx.stores.consents
        let ledger = fx.stores.tokenLedger
        let revocations = RevokedTokens(cache: cache)
        let service = MiniAppAccessTokenService(
            consents: consents, answers: AccessTokenAnswerCache(cache: cache), minter: TestES256Minter(),
            ledger: ledger, revocations: revocations
        )
        let tenant = try await fx.tenant()
        let alice = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-1")
        let bob = UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-1")
        for owner in [alice, bob] { try await consents.setConsents([token: .allowed], for: owner) }
        let request = AccessTokenRequest(audience: "rae", scopes: ["memberinfo_read_point"])
        let first = try await service.issue(tenant: tenant, userID: "alice", manifest: manifest, request: request)
        let second = try await service.issue(tenant: tenant, userID: "alice", manifest: manifest, request: request)
        let bobs = try await service.issue(tenant: tenant, userID: "bob", manifest: manifest, request: request)
        // An already expired entry is not revoked again.
        try await ledger.record(alice, jti: "expired", expiresAt: Date().addingTimeInterval(-10))

        #expect(try await service.revokeAll(alice) == 2)
        for issued in [first, second] {
            #expect(try await revocations.isRevoked(tenantID: "acme", jti: Self.jti(issued.token)))
        }
        #expect(try await !revocations.isRevoked(tenantID: "acme", jti: Self.jti(bobs.token)))
        #expect(try await service.revokeAll(alice) == 0)
    }

    @Test(
        "withdrawing ACCESS_TOKEN through the consent service revokes that user's tokens for that mini app; other changes revoke nothing",
        arguments: StoreBackend.available)
    func withdrawingConsentRevokesTokens(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let (cache, client) = try TestCaches.make()
        defer { if let client { Task { await client.shutdown() } } }
        let revocations = RevokedTokens(cache: cache)
        let tokens = MiniAppAccessTokenService(
            consents: fx.stores.consents, answers: AccessTokenAnswerCache(cache: cache), minter: TestES256Minter(),
            ledger: fx.stores.tokenLedger, revocations: revocations
        )
        let consents = ConsentService(store: fx.stores.consents, tokens: tokens)
        let tenant = try await fx.tenant()
        let alice = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-1")
        let bob = UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-1")
        for owner in [alice, bob] {
            _ = try await consents.update(owner, manifest: manifest, changes: [token: .allowed])
        }
        let request = AccessTokenRequest(audience: "rae", scopes: ["memberinfo_read_point"])
        let alices = try await tokens.issue(tenant: tenant, userID: "alice", manifest: manifest, request: request)
        let bobs = try await tokens.issue(tenant: tenant, userID: "bob", manifest: manifest, request: request)

        _ = try await consents.update(alice, manifest: manifest, changes: [CustomPermission.location.rawValue: .denied])
        #expect(try await !revocations.isRevoked(tenantID: "acme", jti: Self.jti(alices.token)))
        _ = try await consents.update(alice, manifest: manifest, changes: [token: .denied])
        #expect(try await revocations.isRevoked(tenantID: "acme", jti: Self.jti(alices.token)))
        #expect(try await !revocations.isRevoked(tenantID: "acme", jti: Self.jti(bobs.token)))
    }

    static func jti(_ token: String) throws -> String {
        let payload = try #require(TestES256Minter.decode(token.split(separator: ".")[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        return try #require(claims["jti"] as? String)
    }
}
