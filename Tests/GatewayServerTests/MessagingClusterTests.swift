import Foundation
import GatewayCore
import GatewayPostgres
import RedisClient
import Testing

/// Issue 31, limits across replicas: one user sends 1,000 messages within a minute, spread
/// over three gateway processes sharing PostgreSQL and Redis; exactly the documented per-minute
/// limit gets through per window, and every replica refuses the rest with 429
/// `message_rate_limited`. Nothing waits for a minute to turn (issue 47): the shared counters
/// say which window each accepted message was counted in, and a refused send charges none.
@Suite("Messages across three replicas: one sender's limit holds on every replica", .enabled(if: DatabaseBackend.serverURL != nil), .serialized)
struct MessagingClusterTests {
    static let perMinute = 30
    static let sends = 1_000

    @Test("1,000 sends in a minute from one user are cut at messages.per.minute on every replica")
    func oneLimitForAllReplicas() async throws {
        let cluster = try await ClusterTests.Cluster.start(settings: [
            "GATEWAY_MESSAGES_PER_MINUTE": "\(Self.perMinute)", "GATEWAY_MESSAGES_PER_DAY": "0",
            "GATEWAY_MESSAGES_PER_RECIPIENT_HOUR": "0",
        ])
        do {
            try await Self.run(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    static func run(_ cluster: ClusterTests.Cluster) async throws {
        let url = try #require(cluster.environment["GATEWAY_DATABASE_URL"])
        let stores = try await PostgresStores.open(
            url: url, sealer: SecretSealer(masterKey: try MasterKey(base64: GatewayHarness.masterKeyBase64)),
            logger: DatabaseBackend.quiet)
        defer { Task { await stores.close() } }
        let token = try #require(try await cluster.tokens(via: 0)["access_token"] as? String)
        guard case .string(let sender)? = try jwtClaims(token)["sub"] else { throw CancellationError() }
        try await stores.auth.addUser(LocalUser(tenantID: "demo", username: "bob", subject: "bob-subject", passwordHash: "x"))
        try await stores.messaging.replaceContacts(
            [Contact(id: "bob-subject", name: "Bob", email: nil, isUser: true)], tenantID: "demo", userID: sender)
        let owner = UserMiniAppKey(tenantID: "demo", userID: sender, miniAppID: "hello")
        try await stores.consents.touch(owner)
        _ = try await stores.consents.setConsents([CustomPermission.sendMessage.rawValue: .allowed], for: owner)

        let body = #"{"to": ["bob-subject"], "message": {"text": "hi"}}"#
        let results = try await withThrowingTaskGroup(of: (Int, Int, String).self) { group in
            var results: [(replica: Int, status: Int, body: String)] = []
            for index in 0..<Self.sends {
                let replica = index % 3
                group.addTask {
                    let reply = try await ClusterTests.request(
                        "\(cluster.bases[replica])/t/demo/v1/me/miniapps/hello/messages", method: "POST",
                        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: body)
                    return (replica, reply.status, reply.body)
                }
                if index >= 31, let done = try await group.next() { results.append(done) }
            }
            for try await done in group { results.append(done) }
            return results
        }
        let accepted = results.filter { $0.status == 200 }
        let refused = results.filter { $0.status == 429 }
        #expect(accepted.count + refused.count == Self.sends, "\(Set(results.map(\.status)))")
        #expect(refused.allSatisfy { $0.body.contains("\"message_rate_limited\"") })
        for replica in 0..<3 {
            #expect(refused.contains { $0.replica == replica }, "replica \(replica) never refused")
        }
        let inbox = try await stores.messaging.inboxSize(tenantID: "demo", userID: "bob-subject", now: Date())
        #expect(inbox.total == accepted.count)
        // The sender's per-minute counters in Redis, one per fixed window the burst touched: each
        // holds exactly what was accepted in its window (refusals took their charge back).
        let redis = RedisClient(configuration: try RedisConfiguration(url: try #require(cluster.environment["GATEWAY_REDIS_URL"])))
        defer { Task { await redis.shutdown() } }
        // (The shared cache puts its own namespace before every key.)
        guard case .array(let keys) = try await redis.send(["KEYS", "*msg:m:demo:\(sender):*"]) else {
            throw CancellationError()
        }
        var perWindow: [Int64] = []
        for case .bulkString(let key) in keys {
            guard case .bulkString(let value) = try await redis.send([Array("GET".utf8), key]) else { continue }
            perWindow.append(Int64(String(decoding: value, as: UTF8.self)) ?? -1)
        }
        #expect((1...2).contains(perWindow.count), "windows: \(perWindow)")
        #expect(perWindow.reduce(0, +) == Int64(accepted.count), "counted \(perWindow), accepted \(accepted.count)")
        #expect(perWindow.allSatisfy { $0 <= Int64(Self.perMinute) }, "\(perWindow)")
        // The burst is 1,000 sends: whichever window got most of them filled up exactly.
        #expect(perWindow.max() == Int64(Self.perMinute), "\(perWindow)")
    }
}
