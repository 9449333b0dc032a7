import Foundation
import GatewayCore
import Testing

/// The admin API (issue 48) on three replicas sharing PostgreSQL: a change through replica
/// A's admin listener is served by the public side of B and C (through the change feed)
/// and audited exactly once; an action retried with its Idempotency-Key through another
/// replica acts once; an operator token issued by one replica is good on the others.
@Suite("Admin API on three replicas", .enabled(if: DatabaseBackend.serverURL != nil), .serialized)
struct AdminClusterTests {
    static func header(_ name: String, _ headers: [(String, String)]) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    @Test("a tenant change through A's admin API is served by B and C (delays printed) and audited once")
    func changeThroughOneReplicaServedByAll() async throws {
        let cluster = try await ClusterTests.Cluster.start()
        do {
            let created = try ClusterTests.json(
                try await WriteSideClusterTests.gatewayctl(
                    cluster, ["operator", "create", "ci-bot", "--service-account", "--platform-admin", "--json"]))
            let secret = try #require(created["clientSecret"] as? String)
            let issued = try await ClusterTests.request(
                "\(cluster.adminBases[0])/admin/oauth2/token", method: "POST",
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "grant_type=client_credentials&client_id=ci-bot&client_secret=\(secret)")
            let token = try #require(try ClusterTests.json(issued.body)["access_token"] as? String, "\(issued.body)")
            let bearer = [("Authorization", "Bearer \(token)")]

            // A token from replica A is good on B; the public port never serves the admin API.
            let read = try await ClusterTests.exchange("\(cluster.adminBases[1])/admin/v1/tenants/demo", headers: bearer)
            #expect(read.status == 200)
            #expect(try await ClusterTests.request("\(cluster.bases[1])/admin/v1/tenants/demo", headers: bearer).status == 404)
            let etag = try #require(Self.header("ETag", read.headers))

            let patched = try await ClusterTests.exchange(
                "\(cluster.adminBases[0])/admin/v1/tenants/demo", method: "PATCH",
                headers: bearer + [("Content-Type", "application/merge-patch+json"), ("If-Match", etag)],
                body: #"{"displayName": "Demo, renamed by the admin API"}"#)
            let changed = ContinuousClock.now
            #expect(patched.status == 200, "\(patched.body)")
            let requestID = try #require(Self.header("X-Request-Id", patched.headers))

            let delays = WriteSideClusterTests.Shared<[Duration]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for base in cluster.bases.dropFirst() {
                    group.addTask {
                        let served = await eventually(within: .seconds(10), every: .milliseconds(10)) {
                            let config = try? await ClusterTests.request("\(base)/t/demo/v1/host-config")
                            return config?.body.contains("Demo, renamed by the admin API") == true
                        }
                        #expect(served, "\(base) still serves the old display name")
                        let delay = ContinuousClock.now - changed
                        delays.withLock { $0.append(delay) }
                    }
                }
                try await group.waitForAll()
            }
            print("admin API change served by replicas B and C after \(delays.withLock { $0 }.sorted())")

            // Audited exactly once, whichever replica is asked.
            let audit = try await ClusterTests.request(
                "\(cluster.adminBases[2])/admin/v1/audit?tenant=demo&resource=tenant", headers: bearer)
            let items = try ClusterTests.json(audit.body)["items"] as? [[String: Any]] ?? []
            let changes = items.filter {
                ($0["outcome"] as? [String: Any])?["status"] as? Int == 200 && $0["verb"] as? String != "create"
            }
            #expect(changes.count == 1, "\(audit.body)")
            #expect(changes.first?["requestId"] as? String == requestID)

            // A stale If-Match through C: 412, audited, nothing written.
            let stale = try await ClusterTests.request(
                "\(cluster.adminBases[2])/admin/v1/tenants/demo", method: "PATCH",
                headers: bearer + [("Content-Type", "application/merge-patch+json"), ("If-Match", etag)],
                body: #"{"displayName": "Lost"}"#)
            #expect(stale.status == 412, "\(stale.body)")

            // An action retried with its key through another replica acts once.
            let policy = "/admin/v1/tenants/demo/miniapps/hello/release"
            let set = try await ClusterTests.request(
                "\(cluster.adminBases[0])\(policy)", method: "PATCH",
                headers: bearer + [("Content-Type", "application/merge-patch+json")],
                body: #"{"stable": "v1", "candidate": {"version": "v2", "percent": 5}}"#)
            #expect(set.status == 200, "\(set.body)")
            var answers: [(status: Int, headers: [(String, String)], body: String)] = []
            for admin in [cluster.adminBases[1], cluster.adminBases[2]] {
                answers.append(
                    try await ClusterTests.exchange(
                        "\(admin)\(policy)/actions", method: "POST",
                        headers: bearer + [("Content-Type", "application/json"), ("Idempotency-Key", "halt-once")],
                        body: #"{"action": "halt", "reason": "errors"}"#))
            }
            #expect(answers.map(\.status) == [200, 200], "\(answers.map(\.body))")
            #expect(Self.header("Idempotent-Replayed", answers[1].headers) == "true")
            #expect(try ClusterTests.json(answers[0].body)["revision"] as? Int == 2)
            #expect(try ClusterTests.json(answers[1].body)["revision"] as? Int == 2)
            let history = try await ClusterTests.request("\(cluster.adminBases[0])\(policy)/history", headers: bearer)
            #expect((try ClusterTests.json(history.body)["items"] as? [[String: Any]])?.count == 2, "\(history.body)")
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }
}
