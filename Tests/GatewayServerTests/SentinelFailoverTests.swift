import Foundation
import GatewayAPI
import GatewayCore
import RedisClient
import Testing

@Suite("Redis Sentinel failover under load")
struct SentinelFailoverTests {
    /// The gateway knows only the sentinel. Its master is killed while clients keep reading a
    /// cached manifest: every read is answered, and within seconds the gateway stores new answers
    /// on the promoted replica.
    @Test func cachedReadsStayAnsweredAndTheGatewayFollowsTheNewMaster() async throws {
        let master = try await RedisProcess.start()
        let replica = try await RedisProcess.start(replicaOf: master)
        let sentinel = try await RedisProcess.startSentinel(watching: master)
        let admin = RedisClient(configuration: try RedisConfiguration(url: "redis://127.0.0.1:\(sentinel.port)"))
        let promoted = RedisClient(configuration: try RedisConfiguration(url: replica.url))
        defer { Task { await admin.shutdown(); await promoted.shutdown() } }
        let known = await eventually(within: .seconds(15)) {
            (try? await admin.send(["SENTINEL", "replicas", "mymaster"]).array?.count == 1) ?? false
        }
        try #require(known, "the sentinel never saw the replica")

        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(redisURL: "redis-sentinel://127.0.0.1:\(sentinel.port)/mymaster/0",
                                              rateLimits: .init(perTenant: 1_000_000)) { harness, client, _ in
                let id = uniqueTenantID("sentinel")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let path = Operations.GetMiniAppManifest.Input.Path(tenant: id, id: "hello", versionId: "v1")
                _ = try await client.getMiniAppManifest(path: path).ok

                let killedAt = ContinuousClock.now
                async let reads: [Bool] = withThrowingTaskGroup(of: [Bool].self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            var answered: [Bool] = []
                            while ContinuousClock.now - killedAt < .seconds(6) {
                                answered.append((try? await client.getMiniAppManifest(path: path).ok) != nil)
                                try await Task.sleep(for: .milliseconds(20))
                            }
                            return answered
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                await master.kill()

                let promotedInTime = await eventually(within: .seconds(15)) {
                    (try? await promoted.send(["ROLE"]).array?.first?.string == "master") ?? false
                }
                try #require(promotedInTime, "the sentinel did not promote the replica")
                // Requests count against the tenant's rate limit in Redis: the counter grows on it.
                let followed = await eventually(within: .seconds(15)) {
                    guard let before = try? await rateCount(promoted, tenant: id) else { return false }
                    _ = try? await client.getMiniAppManifest(path: path).ok
                    return ((try? await rateCount(promoted, tenant: id)) ?? 0) > before
                }
                try #require(followed, "the gateway never wrote to the promoted replica")
                let followedAfter = ContinuousClock.now - killedAt
                print(
                    "sentinel failover: gateway wrote to the promoted replica \(followedAfter) after the master was killed"
                )

                let outcomes = try await reads
                #expect(outcomes.count > 50)
                #expect(
                    outcomes.allSatisfy { $0 },
                    "\(outcomes.filter { !$0 }.count) of \(outcomes.count) cached reads failed during the failover")
            }
        }
        await sentinel.kill()
        await replica.kill()
    }
}

/// The requests counted against `tenant`'s rate limit on this server, over all windows.
private func rateCount(_ redis: RedisClient, tenant: String) async throws -> Int {
    var total = 0
    for key in try await redis.send(["KEYS", "*rl:t:\(tenant):*"]).array?.compactMap(\.string) ?? [] {
        total += Int(try await redis.getString(key) ?? "0") ?? 0
    }
    return total
}
