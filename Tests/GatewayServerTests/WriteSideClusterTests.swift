import Foundation
import GatewayCore
import Synchronization
import Testing

/// Issue 47 on three replicas sharing PostgreSQL and Redis: a disabled user's tokens are refused
/// by every replica at once, and a key rotation and retirement under continuous sign-ins never
/// leaves a relying party (which caches the JWKS as `Cache-Control` says) without the key of a
/// token, nor refuses a valid token.
@Suite("The write side on three replicas: disable means now, key rotation no verifier notices", .enabled(if: DatabaseBackend.serverURL != nil), .serialized)
struct WriteSideClusterTests {
    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    /// A value tasks share.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// What the workload counted.
    struct Counts: Sendable {
        var issued = 0
        var missing = 0
        var refused = 0
        var kids: [String: Int] = [:]
        var missingKids: [String: Int] = [:]
    }

    /// `gatewayctl` with the cluster's database; its standard output.
    static func gatewayctl(_ cluster: ClusterTests.Cluster, _ arguments: [String]) async throws -> String {
        let result = try await ChildProcess.run(ChildProcess.binary("gatewayctl"), arguments, environment: cluster.environment)
        try #require(result.status == 0, "gatewayctl \(arguments.joined(separator: " ")): \(result.output)")
        return result.output
    }

    @Test("user disable: every replica refuses the user's access token within a second (printed), refresh and devices too; re-enabling revives no token")
    func disableMeansNow() async throws {
        let cluster = try await ClusterTests.Cluster.start()
        do {
            let tokens = try await cluster.tokens(via: 0)
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            for base in cluster.bases {
                #expect(try await ClusterTests.request("\(base)/t/demo/v1/me", headers: Self.bearer(access)).status == 200)
            }
            _ = try await Self.gatewayctl(cluster, ["user", "disable", "--tenant", "demo", "--username", "demo"])
            let disabled = ContinuousClock.now
            let delays = Shared<[Duration]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for base in cluster.bases {
                    group.addTask {
                        let refused = await eventually(within: .seconds(10), every: .milliseconds(10)) {
                            (try? await ClusterTests.request("\(base)/t/demo/v1/me", headers: Self.bearer(access)).status)
                                == 401
                        }
                        #expect(refused, "\(base) still accepts a disabled user's token")
                        delays.withLock { $0.append(ContinuousClock.now - disabled) }
                    }
                }
                try await group.waitForAll()
            }
            print("disabled user's token refused by replicas after \(delays.withLock { $0 }.sorted())")
            for base in cluster.bases {
                let device = try await ClusterTests.request(
                    "\(base)/t/demo/v1/me/devices", method: "POST",
                    headers: Self.bearer(access) + [("Content-Type", "application/json")],
                    body: #"{"provider": "fcm", "token": "phone", "platform": "android"}"#)
                #expect(device.status == 401, "device registration: \(device.status)")
            }
            let refreshed = try await ClusterTests.request(
                "\(cluster.bases[1])/t/demo/oauth2/token", method: "POST",
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "grant_type=refresh_token&client_id=demo-app&refresh_token=\(refresh)")
            #expect(refreshed.status == 400 && refreshed.body.contains("invalid_grant"), "\(refreshed.body)")

            // Re-enabled: the old token stays refused everywhere; a new sign-in works.
            _ = try await Self.gatewayctl(cluster, ["user", "disable", "--tenant", "demo", "--username", "demo", "--enable"])
            let fresh = try #require(try await cluster.tokens(via: 2)["access_token"] as? String)
            for base in cluster.bases {
                #expect(try await ClusterTests.request("\(base)/t/demo/v1/me", headers: Self.bearer(access)).status == 401)
                #expect(
                    await eventually(within: .seconds(5)) {
                        (try? await ClusterTests.request("\(base)/t/demo/v1/me", headers: Self.bearer(fresh)).status) == 200
                    })
            }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// A relying party as OpenID Connect expects one: it verifies tokens against the JWKS it holds
    /// and fetches the JWKS again only when the copy it holds is older than `max-age`.
    final class RelyingParty: Sendable {
        private struct Held {
            var kids: Set<String> = []
            var fetchedAt: ContinuousClock.Instant = .now - .seconds(3600)
            var maxAge: Duration = .zero
        }

        private let held = Mutex(Held())
        let bases: [String]

        init(bases: [String]) {
            self.bases = bases
        }

        /// The kids it holds now (fetched from a random replica when the copy is stale).
        func kids() async throws -> Set<String> {
            let copy = held.withLock { $0 }
            if ContinuousClock.now - copy.fetchedAt < copy.maxAge { return copy.kids }
            let base = bases.randomElement()!
            let answer = try await ClusterTests.exchange("\(base)/t/demo/.well-known/jwks.json")
            let json = try ClusterTests.json(answer.body)
            let kids = Set((json["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String })
            let maxAge = answer.headers.first { $0.0.lowercased() == "cache-control" }
                .flatMap { $0.1.split(separator: "=").last.flatMap { Int($0) } } ?? 0
            held.withLock { $0 = Held(kids: kids, fetchedAt: .now, maxAge: .seconds(maxAge)) }
            return kids
        }
    }

    static func kid(_ token: String) throws -> String {
        guard case .string(let kid)? = try jwtHeader(token)["kid"] else { throw CancellationError() }
        return kid
    }

    @Test("keys rotate and retire under continuous refreshes on 3 replicas: 0 tokens whose kid the RP's JWKS lacks, 0 valid tokens refused")
    func rotationNoVerifierNotices() async throws {
        let cluster = try await ClusterTests.Cluster.start(settings: ["GATEWAY_JWKS_MAX_AGE_S": "2"])
        do {
            let rp = RelyingParty(bases: cluster.bases)
            let counts = Shared(Counts())
            let stop = StopFlag()
            // Four refresh chains through random replicas; each new access and ID token checked
            // against the RP's JWKS, each access token used at a random replica.
            let workload = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            var refresh = try #require(try await cluster.tokens(via: 0)["refresh_token"] as? String)
                            while !stop.isSet {
                                let answer = try await ClusterTests.request(
                                    "\(cluster.bases.randomElement()!)/t/demo/oauth2/token", method: "POST",
                                    headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                    body: "grant_type=refresh_token&client_id=demo-app&refresh_token=\(refresh)")
                                let json = try ClusterTests.json(answer.body)
                                guard answer.status == 200, let access = json["access_token"] as? String,
                                    let id = json["id_token"] as? String, let next = json["refresh_token"] as? String
                                else {
                                    Issue.record("refresh refused: \(answer.status) \(answer.body)")
                                    return
                                }
                                refresh = next
                                let kids = try await rp.kids()
                                let (accessKID, idKID) = (try Self.kid(access), try Self.kid(id))
                                let used = try await ClusterTests.request(
                                    "\(cluster.bases.randomElement()!)/t/demo/v1/me", headers: Self.bearer(access))
                                counts.withLock { counts in
                                    counts.issued += 1
                                    counts.kids[accessKID, default: 0] += 1
                                    for kid in [accessKID, idKID] where !kids.contains(kid) {
                                        counts.missing += 1
                                        counts.missingKids[kid, default: 0] += 1
                                    }
                                    if used.status != 200 { counts.refused += 1 }
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            func keys() async throws -> [[String: Any]] {
                try #require(
                    try JSONSerialization.jsonObject(
                        with: Data(try await Self.gatewayctl(cluster, ["keys", "list", "--tenant", "demo", "--json"]).utf8))
                        as? [[String: Any]])
            }
            #expect(await eventually(within: .seconds(10)) { counts.withLock { $0.issued } >= 20 })
            let old = try #require(try await keys().first { $0["alg"] as? String == "ES256" && $0["signing"] as? Bool == true })
            let oldKID = try #require(old["kid"] as? String)
            // Published now, signing in 8 s: longer than the JWKS's max-age (2 s) plus the key reload (5 s).
            let rotated = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(try await Self.gatewayctl(
                        cluster, ["keys", "rotate", "--tenant", "demo", "--sign-after", "8s", "--json"]).utf8))
                    as? [String: Any])
            let newKID = try #require(rotated["kid"] as? String)
            #expect(await eventually(within: .seconds(30)) { counts.withLock { $0.kids[newKID] ?? 0 } >= 20 })
            // Retired: signs no more (it did not since the rotation), stays published for its tokens.
            _ = try await Self.gatewayctl(cluster, ["keys", "retire", "--tenant", "demo", "--kid", oldKID])
            let retired = try #require(try await keys().first { $0["kid"] as? String == oldKID })
            #expect(retired["state"] as? String == "verify-only" && retired["nextState"] as? String == "retired")
            let issued = counts.withLock { $0.issued }
            _ = await eventually(within: .seconds(10)) { counts.withLock { $0.issued } >= issued + 40 }
            stop.set()
            try await workload.value
            let result = counts.withLock { $0 }
            print(
                "rotation under refreshes: \(result.issued) token pairs, kids \(result.kids), \(result.missing) kids missing from the RP's JWKS \(result.missingKids), \(result.refused) valid tokens refused"
            )
            #expect(result.missing == 0)
            #expect(result.refused == 0)
            #expect((result.kids[oldKID] ?? 0) > 0 && (result.kids[newKID] ?? 0) > 0)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }
}
