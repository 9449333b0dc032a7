import Foundation
import Logging
import Metrics
import Synchronization
import Testing
@testable import GatewayCore
@testable import GatewaySQLite

/// A signing-key store whose reads can be made to fail as a database out of reach does.
final class UnreachableKeyStore: SigningKeyStore {
    let base: any SigningKeyStore
    let unreachable = Mutex(false)
    let reads = Mutex(0)

    init(_ base: any SigningKeyStore) {
        self.base = base
    }

    func signingKeys(tenantID: String) async throws -> [SigningKey] {
        reads.withLock { $0 += 1 }
        if unreachable.withLock({ $0 }) { throw DatabaseUnavailable(reason: "test: out of reach") }
        return try await base.signingKeys(tenantID: tenantID)
    }

    func addSigningKey(_ key: SigningKey, trail: AuditDraft?) async throws {
        try await base.addSigningKey(key, trail: trail)
    }

    func addFirstSigningKey(_ key: SigningKey, now: Date) async throws -> Bool {
        try await base.addFirstSigningKey(key, now: now)
    }

    func scheduleSigningKeys(
        tenantID: String, trail: (@Sendable ([SigningKey], [String: SigningKey.Schedule]) -> AuditDraft)?,
        _ plan: @escaping @Sendable ([SigningKey]) throws -> [String: SigningKey.Schedule]
    ) async throws -> [String: SigningKey.Schedule] {
        try await base.scheduleSigningKeys(tenantID: tenantID, trail: trail, plan)
    }
}

@Suite("Key ring and revocation while the database is out of reach")
struct KeyRingTests {
    /// A tenant `acme` in a fresh SQLite store, its keys behind an ``UnreachableKeyStore``.
    static func scene(_ folder: TemporaryFolder) async throws -> (UnreachableKeyStore, SQLiteAuthStore) {
        let store = try Fixtures.store(folder)
        _ = try await store.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
        let auth = SQLiteAuthStore(tenants: store)
        return (UnreachableKeyStore(auth), auth)
    }

    @Test("loaded keys keep answering while a reload fails, up to the stale limit; then the failure is the caller's")
    func staleKeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, _) = try await Self.scene(folder)
        let ring = KeyRing(store: store, refreshInterval: .zero, staleLimit: .seconds(600))
        let loaded = try await ring.publishedKeys(tenantID: "acme").map(\.kid)
        store.unreachable.withLock { $0 = true }
        let readsBefore = store.reads.withLock { $0 }
        #expect(try await ring.publishedKeys(tenantID: "acme").map(\.kid) == loaded)
        let kid = try #require(loaded.first)
        #expect(try await ring.verificationKey(tenantID: "acme", kid: kid) != nil)
        // The reload was tried (in the background), and failed without emptying the ring.
        for _ in 0..<1000 where store.reads.withLock({ $0 }) == readsBefore { await Task.yield() }
        #expect(store.reads.withLock { $0 } > readsBefore)
        #expect(try await ring.publishedKeys(tenantID: "acme").map(\.kid) == loaded)

        let strict = KeyRing(store: store, refreshInterval: .zero, staleLimit: .zero)
        store.unreachable.withLock { $0 = false }
        _ = try await strict.publishedKeys(tenantID: "acme")
        store.unreachable.withLock { $0 = true }
        await #expect(throws: DatabaseUnavailable.self) { try await strict.publishedKeys(tenantID: "acme") }
    }

    @Test("preloaded keys answer a tenant's first request while the database is out of reach; a tenant without keys gets none made by the preload")
    func preload() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, auth) = try await Self.scene(folder)
        _ = try await KeyRing(store: auth).publishedKeys(tenantID: "acme")  // acme's keys made
        let ring = KeyRing(store: store, refreshInterval: .seconds(5), staleLimit: .seconds(600))
        await ring.preload(tenantIDs: ["acme", "empty"])
        #expect(try await auth.signingKeys(tenantID: "empty").isEmpty)
        store.unreachable.withLock { $0 = true }
        #expect(try await ring.publishedKeys(tenantID: "acme").count == 2)
        await #expect(throws: DatabaseUnavailable.self) { try await ring.publishedKeys(tenantID: "empty") }
        // Without the preload, acme's first request needs the database.
        await #expect(throws: DatabaseUnavailable.self) {
            try await KeyRing(store: store).publishedKeys(tenantID: "acme")
        }
    }

    @Test("a revocation that cannot read the signing keys fails; it is never acknowledged unrecorded")
    func revocationNeedsTheKeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, auth) = try await Self.scene(folder)
        let keys = KeyRing(store: store, refreshInterval: .zero, staleLimit: .zero)
        let revoked = RevokedTokens(cache: MemoryCache())
        let tokens = TokenService(
            keys: keys, refreshStore: auth, users: auth, codes: AuthorizationCodes(cache: MemoryCache()),
            revoked: revoked)
        let verifier = TokenVerifier(keys: keys, revoked: revoked, memo: nil)
        let client = OAuthClient(tenantID: "acme", clientID: "app", redirectURIs: ["http://127.0.0.1/cb"])
        // An access token's shape (ES256, at+jwt, a kid): whether it is one of ours takes the keys.
        let header = Base64URL.encode(Array(#"{"alg":"ES256","typ":"at+jwt","kid":"k1"}"#.utf8))
        let token = header + "." + Base64URL.encode(Array("{}".utf8)) + "." + Base64URL.encode([1, 2, 3])
        store.unreachable.withLock { $0 = true }
        await #expect(throws: DatabaseUnavailable.self) {
            try await tokens.revoke(token: token, client: client, verifier: verifier, issuer: "https://gw.example/t/acme")
        }
        // A token that is not one of ours needs no keys: 200 (nothing to revoke) as RFC 7009 says.
        try await tokens.revoke(token: "not-a-token", client: client, verifier: verifier, issuer: "https://gw.example/t/acme")
    }

    @Test("a rotated key is published before it signs and signs at its stored time without a reload; a retired key leaves the JWKS when its tokens have expired, and its memoised tokens are refused then")
    func keyLife() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, auth) = try await Self.scene(folder)
        let clock = ManualClock(frozen: true)
        // Never reloads by age: phases change by the clock alone.
        let ring = KeyRing(store: auth, refreshInterval: .seconds(86_400), staleLimit: .seconds(86_400), clock: clock.wall)
        let first = try await ring.signingKey(tenantID: "acme")
        let at = clock.wall.now()
        let next = try SigningKey.generate(tenantID: "acme", now: at, signFrom: at.addingTimeInterval(900))
        try await auth.addSigningKey(next)
        try await ring.reload(tenantIDs: ["acme"])  // the change feed names the tenant: read in the background
        #expect(await eventually { (try? await ring.keys(tenantID: "acme").keys.contains { $0.kid == next.kid }) == true })
        #expect(try await ring.publishedKeys(tenantID: "acme").map(\.kid).contains(next.kid), "published before it signs")
        #expect(try await ring.signingKey(tenantID: "acme").kid == first.kid)
        clock.advance(.seconds(899))
        #expect(try await ring.signingKey(tenantID: "acme").kid == first.kid)
        clock.advance(.seconds(1))
        #expect(try await ring.signingKey(tenantID: "acme").kid == next.kid, "signs at its time, no reload")
        #expect(try await ring.verificationKey(tenantID: "acme", kid: first.kid) != nil, "the old key verifies")

        // A token of the old key, memoised; then the old key is retired (unpublished in 660 s).
        // Revocations known in memory (a complete mirror), as on a replica: tokens are accepted
        // without suspending while their key is published.
        let mirror = RevocationMirror()
        mirror.synced(with: [:], now: 0)
        let revoked = RevokedTokens(
            cache: MemoryCache(), mirror: mirror, durable: SQLiteRevocationStore(database: try Fixtures.store(folder)),
            clock: clock.wall)
        let verifier = TokenVerifier(keys: ring, revoked: revoked, memo: VerifiedTokenMemo(), now: clock.wall.now)
        let issuer = "https://gw.example/t/acme"
        let iat = clock.wall.now().timeIntervalSince1970
        let token = try JWS.sign(
            claims: [
                "iss": .string(issuer), "sub": "u1", "aud": .string(issuer + "/v1"), "client_id": "app",
                "tenant": "acme", "jti": "j1", "iat": .number(iat.rounded()), "exp": .number(iat.rounded() + 600),
            ], typ: "at+jwt", signingKey: first)
        #expect(try await verifier.verify(token, issuer: issuer, tenantID: "acme").keyID == first.kid)
        let now = clock.wall.now()
        try await auth.scheduleSigningKeys(
            tenantID: "acme",
            ["\(first.kid)": .init(signFrom: first.schedule.signFrom, signUntil: now, unpublishAt: now.addingTimeInterval(660))])
        try await ring.reload(tenantIDs: ["acme"])
        #expect(
            await eventually {
                (try? await ring.keys(tenantID: "acme").keys.first { $0.kid == first.kid }?.schedule.unpublishAt) != nil
            })
        #expect(verifier.acceptedInMemory(token, issuer: issuer, tenantID: "acme") != nil)
        clock.advance(.seconds(659))
        #expect(try await verifier.verify(token, issuer: issuer, tenantID: "acme").jti == "j1")
        clock.advance(.seconds(1))
        #expect(verifier.acceptedInMemory(token, issuer: issuer, tenantID: "acme") == nil)
        await #expect(throws: TokenRejection.self) { try await verifier.verify(token, issuer: issuer, tenantID: "acme") }
        #expect(try await !ring.publishedKeys(tenantID: "acme").map(\.kid).contains(first.kid))
        #expect(try await ring.verificationKey(tenantID: "acme", kid: first.kid) == nil)
    }

    @Test("a tenant whose only signer was retired at once gets a new key that signs at once")
    func retiredAtOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, auth) = try await Self.scene(folder)
        let clock = ManualClock(frozen: true)
        let ring = KeyRing(store: auth, refreshInterval: .seconds(86_400), clock: clock.wall)
        let first = try await ring.signingKey(tenantID: "acme")
        let now = clock.wall.now()
        try await auth.scheduleSigningKeys(
            tenantID: "acme", [first.kid: .init(signFrom: first.schedule.signFrom, signUntil: now, unpublishAt: now)])
        try await ring.reload(tenantIDs: ["acme"])
        #expect(await eventually { ring.isPublished(tenantID: "acme", kid: first.kid) == false })
        let replacement = try await ring.signingKey(tenantID: "acme")
        #expect(replacement.kid != first.kid)
        #expect(try await ring.publishedKeys(tenantID: "acme").map(\.kid).contains(first.kid) == false)
    }

    @Test("replicas whose clocks differ by seconds make one first key between them, not one each")
    func firstKeyAcrossSkewedClocks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, auth) = try await Self.scene(folder)
        let now = Date()
        // Replica A's clock runs 5 s ahead of B's: A makes the tenant's first keys, then B
        // (whose "now" is before A's keys' creation) loads them.
        let ahead = KeyRing(store: auth, refreshInterval: .zero, clock: WallClock { now.addingTimeInterval(5) })
        let behind = KeyRing(store: auth, refreshInterval: .zero, clock: WallClock { now })
        let made = try await ahead.signingKey(tenantID: "acme")
        let used = try await behind.signingKey(tenantID: "acme")
        #expect(used.kid == made.kid, "replica B signs with A's key")
        let keys = try await auth.signingKeys(tenantID: "acme")
        #expect(keys.filter { $0.algorithm == .es256 }.count == 1, "\(keys.map(\.kid))")
    }
}
