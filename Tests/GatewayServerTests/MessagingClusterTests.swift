import Foundation
import GatewayCore
import GatewayPostgres
import Testing

/// Issue 31, limits across replicas: one user sends 1,000 messages within a minute, spread
/// over three gateway processes sharing PostgreSQL and Redis; exactly the documented per-minute
/// limit gets through, and every replica refuses the rest with 429 `message_rate_limited`.
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

        // Start early in a minute so the burst stays inside one fixed window.
        let second = Int(Date().timeIntervalSince1970) % 60
        if second > 30 { try await Task.sleep(for: .seconds(61 - second)) }
        let started = Date()
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
        let ended = Date()
        let sameWindow = Int(started.timeIntervalSince1970) / 60 == Int(ended.timeIntervalSince1970) / 60
        let accepted = results.filter { $0.status == 200 }
        let refused = results.filter { $0.status == 429 }
        #expect(accepted.count + refused.count == Self.sends, "\(Set(results.map(\.status)))")
        #expect(refused.allSatisfy { $0.body.contains("\"message_rate_limited\"") })
        for replica in 0..<3 {
            #expect(refused.contains { $0.replica == replica }, "replica \(replica) never refused")
        }
        let inbox = try await stores.messaging.inboxSize(tenantID: "demo", userID: "bob-subject", now: Date())
        #expect(inbox.total == accepted.count)
        if sameWindow {
            #expect(accepted.count == Self.perMinute, "one window, \(accepted.count) accepted")
        } else {
            // The burst overran into a second fixed window: at most one limit per window.
            #expect(accepted.count <= 2 * Self.perMinute && accepted.count >= Self.perMinute)
        }
    }
}
