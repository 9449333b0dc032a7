import Foundation
import RedisClient
import Testing

extension IntegrationTests {
    /// A master, its replica and a real `redis-sentinel`; the client is given only the sentinels.
    @Suite("Redis Sentinel")
    struct SentinelTests {
        /// Master + replica (linked) + one sentinel that already knows the replica.
        struct Group {
            let master: RedisTestServer
            let replica: RedisTestServer
            let sentinel: RedisTestServer

            static func start() async throws -> Group {
                let master = try await RedisTestServer.start()
                let replica = try await RedisTestServer.start(extraArguments: [
                    "--replicaof", "127.0.0.1", "\(master.port)",
                ])
                try await waitUntil("the replica is linked") {
                    try await info(replica, "replication").contains("master_link_status:up")
                }
                let sentinel = try await RedisTestServer.startSentinel(masterPort: master.port)
                try await waitUntil("the sentinel knows the replica") {
                    let client = RedisClient(configuration: sentinel.configuration())
                    defer { Task { await client.shutdown() } }
                    let replicas = try await client.send(["SENTINEL", "replicas", "mymaster"])
                    return (replicas.array?.count ?? 0) == 1
                }
                return Group(master: master, replica: replica, sentinel: sentinel)
            }

            /// A client that knows only the sentinels (the first one listed is not running).
            func client() async throws -> RedisClient {
                let nobody = try await RedisTestServer.freePort()
                var configuration = try RedisConfiguration(
                    url: "redis-sentinel://127.0.0.1:\(nobody),127.0.0.1:\(sentinel.port)/mymaster")
                configuration.reconnectMaxBackoff = .milliseconds(200)
                return RedisClient(configuration: configuration)
            }
        }

        @Test func discoversTheMasterThroughTheSentinels() async throws {
            let group = try await Group.start()
            let client = try await group.client()
            #expect(try await client.set("sentinel:key", "value"))
            #expect(try await servingPort(client) == group.master.port)
            #expect(try await client.getString("sentinel:key") == "value")
            await client.shutdown()
        }

        @Test func unknownMasterNameIsAClearError() async throws {
            let group = try await Group.start()
            let client = RedisClient(
                configuration: try RedisConfiguration(
                    url: "redis-sentinel://127.0.0.1:\(group.sentinel.port)/nosuchmaster"))
            await #expect {
                try await client.ping()
            } throws: { error in
                guard case RedisError.connectionFailed(let message) = error else { return false }
                return message.contains("no sentinel named the master 'nosuchmaster'")
            }
            await client.shutdown()
        }

        /// Kill -9 the master under a stream of writes: the sentinel promotes the replica and the
        /// client writes to it within a few seconds, with the data written before the failover.
        @Test func followsAFailoverWhenTheMasterDies() async throws {
            let group = try await Group.start()
            let client = try await group.client()
            #expect(try await client.set("failover:before", "kept"))
            _ = try await client.send(["WAIT", "1", "2000"])  // replicated before the crash

            try await group.master.killAndWait()
            let killed = ContinuousClock.now
            let written = await eventually(within: .seconds(30), every: .milliseconds(50)) {
                try await client.set("failover:after", "written")
            }
            let measured = ContinuousClock.now - killed
            #expect(written, "no write succeeded within 30 s of the master's death")
            print(
                "sentinel failover: first write on the new master \(measured.components.seconds * 1000 + measured.components.attoseconds / 1_000_000_000_000_000) ms after the master was killed"
            )
            #expect(measured < .seconds(15))
            #expect(try await servingPort(client) == group.replica.port)
            #expect(try await client.getString("failover:before") == "kept")
            await client.shutdown()
        }

        /// `SENTINEL FAILOVER` demotes a live master: the client hears `+switch-master` (or a
        /// READONLY reply) and moves its writes to the new master.
        @Test func followsAnAnnouncedFailoverOfALiveMaster() async throws {
            let group = try await Group.start()
            let client = try await group.client()
            #expect(try await servingPort(client) == group.master.port)

            let admin = RedisClient(configuration: group.sentinel.configuration())
            // NOGOODSLAVE until the sentinel has polled the replica itself.
            try await waitUntil("the sentinel accepts SENTINEL FAILOVER") {
                (try? await admin.send(["SENTINEL", "FAILOVER", "mymaster"])) != nil
            }
            await admin.shutdown()
            try await waitUntil("writes reach the promoted replica", within: .seconds(20)) {
                guard (try? await client.set("switch:key", "v")) == true else { return false }
                return try await servingPort(client) == group.replica.port
            }
            try await waitUntil("the sentinel turns the old master into a replica") {
                try await info(group.master, "replication").contains("role:slave")
            }
            await client.shutdown()
        }
    }
}

/// The port of the server that answered (`CONFIG GET port`).
private func servingPort(_ client: RedisClient) async throws -> Int? {
    let reply = try await client.send(["CONFIG", "GET", "port"])
    return reply.array?.last?.string.flatMap { Int($0) }
}

/// `INFO section` of a server, as text.
private func info(_ server: RedisTestServer, _ section: String) async throws -> String {
    let client = RedisClient(configuration: server.configuration())
    defer { Task { await client.shutdown() } }
    return try await client.send(["INFO", section]).string ?? ""
}

/// Polls `condition` every 100 ms until it holds (errors count as "not yet").
private func waitUntil(
    _ what: String, within limit: Duration = .seconds(15), _ condition: () async throws -> Bool
) async throws {
    if await eventually(within: limit, every: .milliseconds(100), condition) { return }
    Issue.record("timed out waiting until \(what)")
    throw TestServerError.didNotStart(what)
}
