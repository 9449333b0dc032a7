import Foundation
import GatewayAPI
import GatewayCore
import GatewaySQLite
import Synchronization
import Testing

/// Revocations are stored in the tenant database first and announced through Redis
/// second: Redis going down, or coming back empty, loses none.
@Suite("Revocations survive Redis: revoke while it is down, refuse after it restarts empty")
struct DurableRevocationTests {
    @Test(
        "revoking with Redis down answers 200 and the token is refused; a gateway started later on an empty Redis refuses it too",
        arguments: DatabaseBackend.available)
    func revokeThroughOutage(backend: DatabaseBackend) async throws {
        let redis = try await RedisProcess.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gw-durable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let postgres = backend == .postgres ? try await DatabaseBackend.makeSchema() : nil
        defer { if let postgres { Task { await DatabaseBackend.dropSchema(postgres.schema) } } }
        let username = "dora-" + UUID().uuidString.prefix(8).lowercased()

        let (revoked, kept) = try await GatewayHarness.withGateway(
            redisURL: redis.url, folder: folder, publicBaseURL: "https://gateway.test", database: postgres?.url
        ) { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.username = username
            try await kit.setUp()
            let first = try await kit.tokens()
            let second = try await kit.tokens()
            await redis.kill()
            let answer = try await client.revokeToken(
                path: .init(tenant: "demo"),
                body: .urlEncodedForm(.init(token: first.issuedRefreshToken, clientId: kit.clientID)))
            _ = try answer.ok
            // This replica knows at once; the refresh token is dead too.
            #expect(try await kit.me(authorization: "Bearer \(first.accessToken)").status == 401)
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(first.issuedRefreshToken)) == "invalid_grant")
            #expect(try await kit.me(authorization: "Bearer \(second.accessToken)").status == 200)
            return (first.accessToken, second.accessToken)
        }

        // Redis comes back with nothing in it; a new replica starts on the same database.
        try await redis.launch()
        try await GatewayHarness.withGateway(
            redisURL: redis.url, folder: folder, publicBaseURL: "https://gateway.test", database: postgres?.url
        ) { harness, client, port async throws in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            #expect(
                try await kit.me(authorization: "Bearer \(revoked)").status == 401,
                "a token revoked before the restart was accepted")
            #expect(try await kit.me(authorization: "Bearer \(kept)").status == 200)
        }
        await redis.kill()
    }

    @Test("a revocation whose announcement failed reaches another replica's memory through the database")
    func announcementLost() async throws {
        let folder = try FileManager.default.url(
            for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: FileManager.default.temporaryDirectory,
            create: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try MasterKey(base64: GatewayHarness.masterKeyBase64)
        let path = folder.appendingPathComponent("revocations.sqlite").path
        let storeA = try SQLiteTenantStore.open(path: path, sealer: SecretSealer(masterKey: key))
        let storeB = try SQLiteTenantStore.open(path: path, sealer: SecretSealer(masterKey: key))
        let mirrorB = RevocationMirror()
        let syncB = RevocationSync(
            mirror: mirrorB, feed: nil, durable: SQLiteRevocationStore(database: storeB),
            pollInterval: .milliseconds(50), logger: .init(label: "b"))
        let cursor = try await syncB.start()
        let follower = Task { await syncB.run(from: cursor) }
        defer { follower.cancel() }
        // Replica A's feed is a Redis nobody listens on: the announcement fails.
        let deadRedis = RedisRevocationFeedStub()
        let revokedA = RevokedTokens(
            cache: MemoryCache(), feed: deadRedis, mirror: RevocationMirror(),
            durable: SQLiteRevocationStore(database: storeA))
        try await revokedA.revoke(tenantID: "acme", jti: "lost-announcement", expiresAt: Date().addingTimeInterval(300))
        #expect(deadRedis.attempts == 1)
        let revokedB = RevokedTokens(
            cache: MemoryCache(), mirror: mirrorB, durable: SQLiteRevocationStore(database: storeB))
        #expect(
            try await eventually(within: .seconds(3)) {
                try await revokedB.isRevoked(tenantID: "acme", jti: "lost-announcement")
            })
        #expect(mirrorB.lookup("oauth:revoked-jti:acme:lost-announcement", now: CachedAnswer.now()) == true)
        #expect(try await !revokedB.isRevoked(tenantID: "acme", jti: "other"))
    }
}

/// A feed whose Redis is down: every announcement fails.
final class RedisRevocationFeedStub: RevocationFeed, Sendable {
    private let count = Mutex(0)
    var attempts: Int { count.withLock { $0 } }

    struct Down: Error {}

    func record(_ key: String, until: Int64) async throws {
        count.withLock { $0 += 1 }
        throw Down()
    }

    func isRecorded(_ key: String) async throws -> Bool { throw Down() }
    func loadAll() async throws -> [String: Int64] { throw Down() }
    func follow(
        into mirror: RevocationMirror, load: @escaping @Sendable () async throws -> [String: Int64]
    ) async throws { throw Down() }
}
