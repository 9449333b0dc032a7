import Foundation
import GatewayCore
import Testing

/// Issue 50 across replicas: three gateway processes on one PostgreSQL and one Redis; a CIBA
/// request made on one replica, approved on another, redeemed on the third.
@Suite("CIBA across three replicas", .enabled(if: DatabaseBackend.serverURL != nil), .serialized)
struct BackchannelClusterTests {
    @Test("request on A, approve on B, poll on C; a second poll anywhere is invalid_grant")
    func requestApprovePollOnThreeReplicas() async throws {
        let cluster = try await ClusterTests.Cluster.start()
        do {
            let added = try await ChildProcess.run(
                ChildProcess.binary("gatewayctl"),
                [
                    "client", "add", "--tenant", "demo", "--client-id", "tv", "--confidential", "--grant-type", "ciba",
                    "--json",
                ], environment: cluster.environment)
            try #require(added.status == 0, "\(added.output)")
            let secret = try #require(try ClusterTests.json(added.output)["clientSecret"] as? String)
            let basic = "Basic " + Data("tv:\(secret)".utf8).base64EncodedString()
            let form = [("Authorization", basic), ("Content-Type", "application/x-www-form-urlencoded")]
            let user = try String(contentsOf: cluster.folder.appendingPathComponent("demo-user.txt"), encoding: .utf8)
                .split(separator: "\n").first { $0.hasPrefix("username: ") }.map { String($0.dropFirst(10)) }
            let username = try #require(user)
            let hostToken = try #require(try await cluster.tokens(via: 1)["access_token"] as? String)

            // Replica A has never looked the client up: it reads the registration gatewayctl wrote.
            let asked = try await ClusterTests.request(
                "\(cluster.bases[0])/t/demo/oauth2/bc-authorize", method: "POST", headers: form,
                body: "scope=openid&login_hint=\(username)&binding_message=TV%204821")
            #expect(asked.status == 200, "\(asked.body)")
            let id = try #require(try ClusterTests.json(asked.body)["auth_req_id"] as? String)

            let listed = try await ClusterTests.request(
                "\(cluster.bases[1])/t/demo/v1/me/sign-in-requests", headers: [("Authorization", "Bearer \(hostToken)")]
            )
            #expect(listed.body.contains(id) && listed.body.contains("TV 4821"), "\(listed.body)")
            let approved = try await ClusterTests.request(
                "\(cluster.bases[1])/t/demo/v1/me/sign-in-requests/\(id)/approve", method: "POST",
                headers: [("Authorization", "Bearer \(hostToken)")])
            #expect(approved.status == 204, "\(approved.body)")

            let poll = "grant_type=\(URLQuery.encode(BackchannelRules.grantType))&auth_req_id=\(id)"
            let tokens = try await ClusterTests.request(
                "\(cluster.bases[2])/t/demo/oauth2/token", method: "POST", headers: form, body: poll)
            #expect(tokens.status == 200, "\(tokens.body)")
            #expect(try ClusterTests.json(tokens.body)["id_token"] is String)
            let again = try await ClusterTests.request(
                "\(cluster.bases[0])/t/demo/oauth2/token", method: "POST", headers: form, body: poll)
            #expect(again.status == 400 && again.body.contains("invalid_grant"), "\(again.body)")
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }
}
