import Foundation
import RedisClient
import Testing
@testable import GatewayCore

/// Two or three "replicas" (each its own RedisClient, feed and mirror) on one real Redis.
/// REDIS_URL when `make test` provides one.
private let revocationRedisURL = ProcessInfo.processInfo.environment["REDIS_URL"].flatMap { $0.isEmpty ? nil : $0 }

@Suite(
    "Revocation feed: revoked token ids reach every replica's memory through Redis",
    .enabled(if: revocationRedisURL != nil))
struct RevocationFeedTests {

    struct Replica {
        let client: RedisClient
        let mirror: RevocationMirror
        let revoked: RevokedTokens
        let follower: Task<Void, Never>

        init(namespace: String) throws {
            let client = RedisClient(configuration: try RedisConfiguration(url: revocationRedisURL!))
            let mirror = RevocationMirror()
            let feed = RedisRevocationFeed(client: client, namespace: namespace)
            self.client = client
            self.mirror = mirror
            revoked = RevokedTokens(cache: RedisCache(client: client, namespace: namespace), feed: feed, mirror: mirror)
            follower = Task { try? await feed.follow(into: mirror) }
        }

        func waitSynced() async -> Bool {
            await eventually { mirror.isSynced }
        }

        func stop() async {
            follower.cancel()
            _ = await follower.value
            await client.shutdown()
        }
    }

    @Test("a revocation on one replica is in the other's memory at once; older ones arrive with the first load")
    func spreads() async throws {
        let namespace = "test:revoked:\(UUID().uuidString):"
        let a = try Replica(namespace: namespace)
        let b = try Replica(namespace: namespace)
        #expect(await a.waitSynced())
        #expect(await b.waitSynced())
        let expiresAt = Date().addingTimeInterval(300)
        try await a.revoked.revoke(tenantID: "acme", jti: "j1", expiresAt: expiresAt)
        #expect(await eventually { b.mirror.lookup("oauth:revoked-jti:acme:j1", now: CachedAnswer.now()) == true })
        #expect(try await b.revoked.isRevoked(tenantID: "acme", jti: "j1"))
        // Answered from memory (synced): an unknown id is "not revoked" without asking Redis.
        #expect(b.mirror.lookup("oauth:revoked-jti:acme:j2", now: CachedAnswer.now()) == false)
        #expect(try await !b.revoked.isRevoked(tenantID: "acme", jti: "j2"))
        // Same jti, other tenant: not revoked.
        #expect(try await !b.revoked.isRevoked(tenantID: "beta", jti: "j1"))

        // A replica that starts later loads what was revoked before it subscribed.
        let c = try Replica(namespace: namespace)
        #expect(await c.waitSynced())
        #expect(c.mirror.lookup("oauth:revoked-jti:acme:j1", now: CachedAnswer.now()) == true)
        await a.stop(); await b.stop(); await c.stop()
    }

    @Test("when the feed stops, lookups fall back to Redis and stay correct")
    func fallsBack() async throws {
        let namespace = "test:revoked:\(UUID().uuidString):"
        let a = try Replica(namespace: namespace)
        let b = try Replica(namespace: namespace)
        #expect(await b.waitSynced())
        b.follower.cancel()
        _ = await b.follower.value
        #expect(!b.mirror.isSynced)
        try await a.revoked.revoke(tenantID: "acme", jti: "late", expiresAt: Date().addingTimeInterval(300))
        #expect(b.mirror.lookup("oauth:revoked-jti:acme:late", now: CachedAnswer.now()) == nil)
        #expect(try await b.revoked.isRevoked(tenantID: "acme", jti: "late"))
        #expect(try await !b.revoked.isRevoked(tenantID: "acme", jti: "other"))
        await a.stop(); await b.stop()
    }

    @Test("expired revocations leave memory; the mirror never answers past an entry's end")
    func expiry() {
        let mirror = RevocationMirror()
        #expect(mirror.lookup("k", now: 0) == nil)
        mirror.synced(with: ["k": 1_000, "old": 10], now: 100)
        #expect(mirror.lookup("k", now: 999) == true)
        #expect(mirror.lookup("k", now: 1_000) == false)
        #expect(mirror.lookup("old", now: 100) == false)
        mirror.unsynced()
        #expect(mirror.lookup("k", now: 500) == nil)
    }

}
