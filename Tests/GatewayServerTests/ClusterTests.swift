import AsyncHTTPClient
import Foundation
import NIOCore
import ProcessSpawn
import Synchronization
import Testing

/// Three gateway processes on one PostgreSQL database and one Redis, as replicas behind a
/// load balancer: what one replica's client sees, every replica agrees with (issue 12, item 2).
@Suite("A cluster of three gateway processes", .enabled(if: DatabaseBackend.serverURL != nil), .serialized)
struct ClusterTests {
    /// Three replicas started at the same moment (they race to migrate and to seed `demo`).
    final class Cluster: Sendable {
        let bases: [String]
        /// The replicas' admin listeners (issue 48), by index.
        let adminBases: [String]
        let folder: URL
        let environment: [String: String]
        /// The replicas' processes, by index (a restarted replica replaces its entry).
        private let processes: Mutex<[SpawnedProcess]>
        private let redis: RedisProcess
        private let schema: String

        private init(
            bases: [String], adminBases: [String], folder: URL, environment: [String: String],
            processes: [SpawnedProcess], redis: RedisProcess, schema: String
        ) {
            self.bases = bases
            self.adminBases = adminBases
            self.folder = folder
            self.environment = environment
            self.processes = Mutex(processes)
            self.redis = redis
            self.schema = schema
        }

        static func start(settings: [String: String] = [:]) async throws -> Cluster {
            let redis = try await RedisProcess.start()
            let (url, schema) = try await DatabaseBackend.makeSchema()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "gw-cluster-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let environment = [
                "GATEWAY_DATABASE_URL": url,
                "GATEWAY_DATABASE_PATH": folder.appendingPathComponent("gateway.sqlite").path,
                "GATEWAY_REDIS_URL": redis.url, "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64,
                "GATEWAY_PUBLIC_BASE_URL": "https://gateway.test", "GATEWAY_LOG_LEVEL": "error", "USER": "tester",
                // Three gateways and PostgreSQL on two cores: the breaker trips only on a second's silence.
                "GATEWAY_DATABASE_PROBE_MS": "1000",
                // ... and a request's database budget is the old 10 s, not 5 s, for the same reason.
                "GATEWAY_DATABASE_TIMEOUT_MS": "10000",
            ].merging(settings) { $1 }
            var processes: [SpawnedProcess] = []
            var bases: [String] = []
            var adminBases: [String] = []
            for _ in 0 ..< 3 {
                let adminPort = try freeTCPPort()
                let (base, process) = try Self.launchReplica(
                    environment.merging(["GATEWAY_ADMIN_PORT": "\(adminPort)"]) { $1 })
                processes.append(process)
                bases.append(base)
                adminBases.append("http://127.0.0.1:\(adminPort)")
            }
            let cluster = Cluster(
                bases: bases, adminBases: adminBases, folder: folder, environment: environment, processes: processes,
                redis: redis, schema: schema)
            for base in bases where !(await Self.isUp(base)) {
                await cluster.stop()
                throw ClusterError.notUp(base)
            }
            return cluster
        }

        private static func launchReplica(
            _ environment: [String: String], errorLog: URL? = nil
        ) throws -> (base: String, process: SpawnedProcess) {
            let port = try freeTCPPort()
            var replica = environment
            replica["GATEWAY_HTTP_PORT"] = "\(port)"
            let process = try ChildProcess.start(
                ChildProcess.binary("gateway"), ["serve"], environment: replica, errorLog: errorLog)
            return ("http://127.0.0.1:\(port)", process)
        }

        private static func isUp(_ base: String) async -> Bool {
            await eventually(within: .seconds(30)) {
                (try? await TestHTTP.noRedirects.get(url: "\(base)/healthz").get().status == .ok) ?? false
            }
        }

        /// One more replica, started now with `settings` and its standard error in `errorLog`
        /// (the caller kills it).
        func startLateReplica(
            settings: [String: String] = [:], errorLog: URL? = nil
        ) async throws -> (base: String, process: SpawnedProcess) {
            let replica = try Self.launchReplica(environment.merging(settings) { $1 }, errorLog: errorLog)
            guard await Self.isUp(replica.base) else {
                replica.process.kill()
                throw ClusterError.notUp(replica.base)
            }
            return replica
        }

        /// Restarts replica `index` as an orchestrator would: SIGTERM, wait until it has exited
        /// (it drains first), start it again on the same port, wait until it is up.
        func restart(replica index: Int) async throws {
            let old = processes.withLock { $0[index] }
            old.terminate()
            let exited = await eventually(within: .seconds(20)) { !old.isRunning }
            try #require(exited, "replica \(index) did not exit after SIGTERM")
            var replica = environment
            let port = try #require(URL(string: bases[index])?.port)
            replica["GATEWAY_HTTP_PORT"] = "\(port)"
            replica["GATEWAY_ADMIN_PORT"] = "\(try #require(URL(string: adminBases[index])?.port))"
            let process = try ChildProcess.start(ChildProcess.binary("gateway"), ["serve"], environment: replica)
            processes.withLock { $0[index] = process }
            guard await Self.isUp(bases[index]) else { throw ClusterError.notUp(bases[index]) }
        }

        /// Stops replica `index` with SIGTERM and waits until it has exited (it drains first),
        /// leaving it stopped.
        func terminate(replica index: Int) async throws {
            let process = processes.withLock { $0[index] }
            process.terminate()
            let exited = await eventually(within: .seconds(30)) { !process.isRunning }
            try #require(exited, "replica \(index) did not exit after SIGTERM")
        }

        /// Kills replica `index` with SIGKILL (no drain, no goodbye), leaving it dead.
        func kill(replica index: Int) async {
            let process = processes.withLock { $0[index] }
            process.kill()
            _ = await eventually(within: .seconds(10)) { !process.isRunning }
        }

        /// Kills Redis and starts it again, empty, on the same port.
        func restartRedis() async throws {
            await redis.kill()
            try await redis.launch()
        }

        /// `gatewayctl` with the cluster's database; fails the test when it exits non-zero.
        func gatewayctl(_ arguments: [String]) async throws {
            let result = try await ChildProcess.run(
                ChildProcess.binary("gatewayctl"), arguments, environment: environment)
            try #require(result.status == 0, "gatewayctl \(arguments.joined(separator: " ")): \(result.output)")
        }

        func stop() async {
            for process in processes.withLock({ $0 }) { process.kill() }
            await redis.kill()
            await DatabaseBackend.dropSchema(schema)
            try? FileManager.default.removeItem(at: folder)
        }

        /// A signed-in demo user's token response, from replica `index`.
        func tokens(via index: Int = 0) async throws -> [String: Any] {
            let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [
                "python3", RepositoryFile.url("scripts/demo-token.py").path, bases[index],
                folder.appendingPathComponent("demo-user.txt").path, "demo", "demo-app", "json",
            ], environment: ProcessInfo.processInfo.environment)
            return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }
    }

    enum ClusterError: Error { case notUp(String) }

    static func request(
        _ url: String, method: String = "GET", headers: [(String, String)] = [], body: String? = nil
    ) async throws -> (status: Int, body: String) {
        let answer = try await exchange(url, method: method, headers: headers, body: body)
        return (answer.status, answer.body)
    }

    /// ``request(_:method:headers:body:)`` with the response's headers.
    static func exchange(
        _ url: String, method: String = "GET", headers: [(String, String)] = [], body: String? = nil
    ) async throws -> (status: Int, headers: [(String, String)], body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        return (
            Int(response.status.code), response.headers.map { ($0.name, $0.value) },
            String(buffer: try await response.body.collect(upTo: 1 << 20))
        )
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(
        "a gatewayctl change is served by every replica within 1 s; one refresh token presented to all three at once has one winner, and the reuse revokes the family on every replica; the storage cap holds with writers on every replica"
    )
    func replicasAgree() async throws {
        let cluster = try await Cluster.start()
        do {
            try await checkTenantChange(cluster)
            try await checkRefreshRace(cluster)
            try await checkStorageCap(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    @Test(
        "rate limits and sign-in throttling are one budget across replicas; a release rollback and withdraw are served by all three within 1 s; 1,000 concurrent cold requests for one manifest make at most one upstream call per replica; a revocation outlives a Redis restart and reaches a replica started later"
    )
    func sharedState() async throws {
        try await FakePlatform.with { fake in
            StagedReleaseEndpointTests.seed(fake)  // hello v1, and v2 for the release check
            // A slow platform, so the cold requests overlap the first fill.
            fake.set { $0.fault = .delay(.milliseconds(300)) }
            let cluster = try await Cluster.start(settings: [
                "GATEWAY_RATE_LIMIT_CLIENT": "\(Self.clientBudget)",
                "GATEWAY_RATE_LIMIT_WINDOW_SECONDS": "\(Self.windowHolding(next: 600))",
            ])
            do {
                try await cluster.gatewayctl([
                    "tenant", "update", "demo", "--platform-url", fake.baseURL,
                    "--project-id", fake.projectID, "--subscription-key", fake.subscriptionKey,
                ])
                try await checkColdRequests(cluster, fake: fake)
                try await checkReleaseActions(cluster)
                try await checkConsentChanges(cluster)
                try await checkRateLimit(cluster)
                try await checkLoginThrottle(cluster)
                try await checkRevocationOutlivesRedis(cluster)
            } catch {
                await cluster.stop()
                throw error
            }
            await cluster.stop()
        }
    }

    static let clientBudget = 1_100

    /// A rate window (whole seconds, epoch-aligned like the limiter's) that the next `margin`
    /// seconds stay inside, so the burst below never straddles a boundary and nothing waits
    /// for the next window.
    static func windowHolding(next margin: Int, now: Date = Date()) -> Int {
        let seconds = Int(now.timeIntervalSince1970)
        return (2 * margin ... 3_600).reversed().first { seconds % $0 < $0 - margin } ?? 3_600
    }

    private func checkColdRequests(_ cluster: Cluster, fake: FakePlatform) async throws {
        let access = try #require(try await cluster.tokens(via: 0)["access_token"] as? String)
        let path = "/t/demo/v1/miniapps/hello/versions/v1/manifest"
        // Every replica serves the new platform before the burst.
        for base in cluster.bases {
            let switched = await eventually(within: .seconds(3)) {
                (try? await Self.request(
                    "\(base)/t/demo/v1/miniapps/absent/versions/v1/manifest",
                    headers: [("Authorization", "Bearer \(access)")]
                ).status) == 404
            }
            try #require(switched, "\(base) does not use the fake platform")
        }
        let before = fake.requests(matching: "/metadata").count
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0 ..< 1_000 {
                let base = cluster.bases[index % 3]
                group.addTask {
                    try await Self.request(base + path, headers: [("Authorization", "Bearer \(access)")]).status
                }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
        }
        let upstreamCalls = fake.requests(matching: "/metadata").count - before
        print(
            "cluster: 1,000 cold manifest requests over 3 replicas -> \(statuses) and \(upstreamCalls) upstream call(s)"
        )
        #expect(statuses == [200: 1_000])
        #expect((1 ... 3).contains(upstreamCalls), "\(upstreamCalls) upstream calls for one cold manifest")
    }

    /// A consent given or withdrawn through one replica is what the next request to any
    /// replica sees (no replica answers from a stale copy).
    /// Issue 29: a rollback and a withdraw written by gatewayctl are served by every replica within 1 s.
    private func checkReleaseActions(_ cluster: Cluster) async throws {
        let token = try #require(try await cluster.tokens(via: 0)["access_token"] as? String)
        let bearer = [("Authorization", "Bearer \(token)")]
        @Sendable func everyReplica(_ name: String, _ condition: @escaping @Sendable (String) async -> Bool) async {
            let written = ContinuousClock.now
            for base in cluster.bases {
                let seen = await eventually(within: .seconds(3)) { await condition(base) }
                #expect(seen, "\(base) never served the \(name)")
            }
            let elapsed = ContinuousClock.now - written
            #expect(elapsed < .seconds(1), "all replicas served the \(name) after \(elapsed)")
        }
        @Sendable func version(_ base: String) async -> String? {
            guard let reply = try? await Self.request("\(base)/t/demo/v1/miniapps/hello", headers: bearer),
                let app = try? Self.json(reply.body), let version = app["version"] as? [String: Any]
            else { return nil }
            return version["versionId"] as? String
        }
        try await cluster.gatewayctl(["release", "set", "--tenant", "demo", "hello", "--candidate", "v2", "--percent", "100"])
        for base in cluster.bases {
            #expect(await eventually(within: .seconds(5)) { await version(base) == "v2" }, "\(base) never offered v2")
        }
        try await cluster.gatewayctl(["release", "rollback", "--tenant", "demo", "hello", "--to", "v1"])
        await everyReplica("rollback") { await version($0) == "v1" }
        try await cluster.gatewayctl(["release", "withdraw", "--tenant", "demo", "hello", "--version", "v2"])
        await everyReplica("withdraw") { base in
            (try? await Self.request("\(base)/t/demo/v1/miniapps/hello/versions/v2/manifest", headers: bearer).status)
                == 410
        }
    }

    private func checkConsentChanges(_ cluster: Cluster) async throws {
        let access = try #require(try await cluster.tokens(via: 2)["access_token"] as? String)
        let headers = [("Authorization", "Bearer \(access)"), ("Content-Type", "application/json")]
        for (round, status) in ["ALLOWED", "DENIED", "ALLOWED"].enumerated() {
            let writer = cluster.bases[round % 3]
            let body = #"{"permissions":[{"name":"rakuten.miniapp.user.USER_NAME","status":"\#(status)"}]}"#
            let put = try await Self.request(
                "\(writer)/t/demo/v1/me/miniapps/hello/permissions", method: "PUT", headers: headers, body: body)
            try #require(put.status == 200, "PUT via \(writer): \(put.status) \(put.body)")
            for base in cluster.bases where base != writer {
                let answer = try Self.json(
                    try await Self.request("\(base)/t/demo/v1/me/miniapps/hello/permissions", headers: headers).body)
                #expect(
                    answer["mayLaunch"] as? Bool == (status == "ALLOWED"),
                    "\(base) after \(status) via \(writer): \(answer)")
            }
        }
    }

    private func checkRateLimit(_ cluster: Cluster) async throws {
        // One window holds the whole burst (see windowHolding).
        let sent = Self.clientBudget * 3 / 2
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            var statuses: [Int: Int] = [:]
            for index in 0 ..< sent {
                let base = cluster.bases[index % 3]
                group.addTask {
                    try await Self.request("\(base)/t/demo/v1/host-config", headers: [("X-Client-Id", "rate-probe")])
                        .status
                }
                // At most 64 in flight.
                if index >= 63, let status = try await group.next() { statuses[status, default: 0] += 1 }
            }
            for try await status in group { statuses[status, default: 0] += 1 }
            return statuses
        }
        // Budgets per replica would have accepted all of them (sent / 3 < budget each).
        #expect(statuses == [200: Self.clientBudget, 429: sent - Self.clientBudget], "\(statuses)")
    }

    private func checkLoginThrottle(_ cluster: Cluster) async throws {
        let form =
            "response_type=code&client_id=demo-app&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&scope=openid&state=s"
            + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&username=throttle-probe&password=wrong"
        var statuses: [Int] = []
        // Five free attempts, then the pair (account, address) is held back. Round-robin, no
        // replica sees more than three attempts: alone, none would throttle.
        for attempt in 0..<7 {
            statuses.append(
                try await Self.request(
                    "\(cluster.bases[attempt % 3])/t/demo/oauth2/authorize", method: "POST",
                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                    body: form
                ).status)
        }
        #expect(statuses == [401, 401, 401, 401, 401, 429, 429], "sign-in statuses \(statuses)")
    }

    private func checkRevocationOutlivesRedis(_ cluster: Cluster) async throws {
        let revoked = try #require(try await cluster.tokens(via: 1)["access_token"] as? String)
        let kept = try #require(try await cluster.tokens(via: 2)["access_token"] as? String)
        let revoke = try await Self.request(
            "\(cluster.bases[0])/t/demo/oauth2/revoke", method: "POST",
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "client_id=demo-app&token=\(revoked)")
        #expect(revoke.status == 200)
        try await cluster.restartRedis()
        let log = cluster.folder.appendingPathComponent("late-replica.log")
        let late = try await cluster.startLateReplica(
            settings: ["GATEWAY_REPLICA_ID": "late-replica", "GATEWAY_LOG_LEVEL": "info"], errorLog: log)
        defer { late.process.kill() }
        // Which replica wrote a log line or a sample is on every one of them.
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("replica=late-replica") }, "\(lines.prefix(3))")
        let samples = try await Self.request("\(late.base)/metrics").body.split(separator: "\n").filter {
            !$0.hasPrefix("#") && !$0.isEmpty
        }
        #expect(
            !samples.isEmpty && samples.allSatisfy { $0.contains("{replica=\"late-replica\"") }, "\(samples.prefix(3))")
        #expect(
            samples.contains("gateway_postgres_pool_size{replica=\"late-replica\"} 20.0")
                || samples.contains("gateway_postgres_pool_size{replica=\"late-replica\"} 20"),
            "\(samples.filter { $0.contains("postgres") })")
        #expect(samples.contains { $0.hasPrefix("gateway_redis_connections{replica=\"late-replica\"}") })
        for base in cluster.bases + [late.base] {
            let me = "\(base)/t/demo/v1/me"
            #expect(
                try await Self.request(me, headers: [("Authorization", "Bearer \(revoked)")]).status == 401,
                "\(base) accepts a revoked token after the Redis restart")
            #expect(
                try await Self.request(me, headers: [("Authorization", "Bearer \(kept)")]).status == 200,
                "\(base) refuses a valid token")
        }
    }

    @Test(
        "a rolling restart of the three replicas behind nginx, under load, loses no request",
        .enabled(if: NginxProcess.isAvailable))
    func rollingRestart() async throws {
        let cluster = try await Cluster.start(settings: [
            "GATEWAY_SHUTDOWN_DRAIN_MS": "1000", "GATEWAY_SHUTDOWN_TIMEOUT_MS": "10000",
        ])
        let nginx: NginxProcess
        do {
            nginx = try await NginxProcess.start(upstreams: cluster.bases, folder: cluster.folder)
        } catch {
            await cluster.stop()
            throw error
        }
        let url = "\(nginx.base)/t/demo/v1/host-config"
        let stop = StopFlag()
        async let load: [Int: Int] = withThrowingTaskGroup(of: [Int: Int].self) { group in
            for _ in 0 ..< 8 {
                group.addTask {
                    var statuses: [Int: Int] = [:]
                    while !stop.isSet {
                        let status = (try? await Self.request(url).status) ?? 0
                        statuses[status, default: 0] += 1
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: [:]) { total, part in total.merge(part, uniquingKeysWith: +) }
        }
        let started = ContinuousClock.now
        var failure: (any Error)?
        do {
            for index in cluster.bases.indices { try await cluster.restart(replica: index) }
        } catch {
            failure = error
        }
        stop.set()
        let statuses = try await load
        print(
            "cluster: rolling restart of 3 replicas behind nginx in \(ContinuousClock.now - started): \(statuses) (0 = connection error)"
        )
        nginx.stop()
        await cluster.stop()
        if let failure { throw failure }
        #expect(statuses.keys.sorted() == [200], "\(statuses)")
        #expect(statuses[200, default: 0] > 100)
    }

    private func checkTenantChange(_ cluster: Cluster) async throws {
        for round in 1 ... 3 {
            let name = "Cluster \(round)"
            let update = try await ChildProcess.run(
                ChildProcess.binary("gatewayctl"), ["tenant", "update", "demo", "--display-name", name],
                environment: cluster.environment)
            try #require(update.status == 0, "gatewayctl: \(update.output)")
            let written = ContinuousClock.now
            for base in cluster.bases {
                let seen = await eventually(within: .seconds(3)) {
                    (try? await Self.json(Self.request("\(base)/t/demo/v1/host-config").body)["displayName"] as? String)
                        == name
                }
                #expect(seen, "\(base) never served round \(round)")
            }
            let elapsed = ContinuousClock.now - written
            #expect(elapsed < .seconds(1), "round \(round): all replicas served the change after \(elapsed)")
        }
    }

    private func checkRefreshRace(_ cluster: Cluster) async throws {
        let tokens = try await cluster.tokens(via: 0)
        let refresh = try #require(tokens["refresh_token"] as? String)
        let access = try #require(tokens["access_token"] as? String)
        for base in cluster.bases {
            #expect(
                try await Self.request("\(base)/t/demo/v1/me", headers: [("Authorization", "Bearer \(access)")]).status
                    == 200)
        }
        let form = "grant_type=refresh_token&client_id=demo-app&refresh_token=\(refresh)"
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for base in cluster.bases {
                group.addTask {
                    try await Self.request(
                        "\(base)/t/demo/oauth2/token", method: "POST",
                        headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.sorted() == [200, 400, 400], "statuses \(statuses)")
        // The losers' reuse revoked the family: its access tokens are refused everywhere.
        let started = ContinuousClock.now
        for base in cluster.bases {
            let refused = await eventually(within: .seconds(3)) {
                (try? await Self.request("\(base)/t/demo/v1/me", headers: [("Authorization", "Bearer \(access)")])
                    .status) == 401
            }
            #expect(refused, "\(base) still accepts a revoked family's access token")
        }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    private func checkStorageCap(_ cluster: Cluster) async throws {
        let update = try await ChildProcess.run(
            ChildProcess.binary("gatewayctl"), ["tenant", "update", "demo", "--storage-max-bytes", "1000"],
            environment: cluster.environment)
        try #require(update.status == 0)
        let access = try #require(try await cluster.tokens(via: 1)["access_token"] as? String)
        let ready = await eventually(within: .seconds(3)) {
            var all = true
            for base in cluster.bases {
                let size = try? await Self.json(
                    Self.request(
                        "\(base)/t/demo/v1/me/miniapps/cap-app/storage/size",
                        headers: [("Authorization", "Bearer \(access)")]
                    ).body)
                all = all && (size?["max"] as? Int) == 1000
            }
            return all
        }
        try #require(ready, "not every replica has the new cap")
        // 30 writers spread over the replicas race to fill 1,000 bytes with 100-byte items.
        let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for writer in 0 ..< 30 {
                let base = cluster.bases[writer % 3]
                group.addTask {
                    let key = String(format: "k%02d", writer)
                    let body = "{\"items\":{\"\(key)\":\"\(String(repeating: "v", count: 100 - key.count))\"}}"
                    let answer = try await Self.request(
                        "\(base)/t/demo/v1/me/miniapps/cap-app/storage", method: "PUT",
                        headers: [("Authorization", "Bearer \(access)"), ("Content-Type", "application/json")],
                        body: body)
                    return answer.status == 200
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(accepted == 10)
        for base in cluster.bases {
            let size = try await Self.json(
                Self.request(
                    "\(base)/t/demo/v1/me/miniapps/cap-app/storage/size",
                    headers: [("Authorization", "Bearer \(access)")]
                ).body)
            #expect(size["used"] as? Int == 1000, "\(base): \(size)")
        }
    }
}

/// Tells looping tasks to stop.
final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
