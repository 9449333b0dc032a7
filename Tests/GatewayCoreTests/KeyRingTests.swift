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

    func addSigningKey(_ key: SigningKey) async throws {
        try await base.addSigningKey(key)
    }

    func retireSigningKey(tenantID: String, kid: String) async throws {
        try await base.retireSigningKey(tenantID: tenantID, kid: kid)
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
        let loaded = try await ring.activeKeys(tenantID: "acme").map(\.kid)
        store.unreachable.withLock { $0 = true }
        let readsBefore = store.reads.withLock { $0 }
        #expect(try await ring.activeKeys(tenantID: "acme").map(\.kid) == loaded)
        let kid = try #require(loaded.first)
        #expect(try await ring.verificationKey(tenantID: "acme", kid: kid) != nil)
        // The reload was tried (in the background), and failed without emptying the ring.
        for _ in 0..<1000 where store.reads.withLock({ $0 }) == readsBefore { await Task.yield() }
        #expect(store.reads.withLock { $0 } > readsBefore)
        #expect(try await ring.activeKeys(tenantID: "acme").map(\.kid) == loaded)

        let strict = KeyRing(store: store, refreshInterval: .zero, staleLimit: .zero)
        store.unreachable.withLock { $0 = false }
        _ = try await strict.activeKeys(tenantID: "acme")
        store.unreachable.withLock { $0 = true }
        await #expect(throws: DatabaseUnavailable.self) { try await strict.activeKeys(tenantID: "acme") }
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
}
