import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// Three gateway processes on one PostgreSQL database and one Redis, as replicas behind a
/// load balancer: what one replica's client sees, every replica agrees with (issue 12, item 2).
@Suite("A cluster of three gateway processes", .enabled(if: DatabaseBackend.serverURL != nil), .serialized)
struct ClusterTests {
    /// Three replicas started at the same moment (they race to migrate and to seed `demo`).
    final class Cluster: Sendable {
        let bases: [String]
        let folder: URL
        let environment: [String: String]
        private let processes: [Process.Handle]
        private let redis: RedisProcess
        private let schema: String

        private init(bases: [String], folder: URL, environment: [String: String], processes: [Process.Handle], redis: RedisProcess, schema: String) {
            self.bases = bases
            self.folder = folder
            self.environment = environment
            self.processes = processes
            self.redis = redis
            self.schema = schema
        }

        static func start() async throws -> Cluster {
            let redis = try await RedisProcess.start()
            let (url, schema) = try await DatabaseBackend.makeSchema()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gw-cluster-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let environment = [
                "GATEWAY_DATABASE_URL": url, "GATEWAY_DATABASE_PATH": folder.appendingPathComponent("gateway.sqlite").path,
                "GATEWAY_REDIS_URL": redis.url, "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64,
                "GATEWAY_PUBLIC_BASE_URL": "https://gateway.test", "GATEWAY_LOG_LEVEL": "error", "USER": "tester",
            ]
            var processes: [Process.Handle] = []
            var bases: [String] = []
            for _ in 0 ..< 3 {
                let port = try freeTCPPort()
                var replica = environment
                replica["GATEWAY_HTTP_PORT"] = "\(port)"
                processes.append(Process.Handle(try ChildProcess.start(ChildProcess.binary("gateway"), ["serve"], environment: replica)))
                bases.append("http://127.0.0.1:\(port)")
            }
            let cluster = Cluster(bases: bases, folder: folder, environment: environment, processes: processes, redis: redis, schema: schema)
            for base in bases {
                let up = await eventually(within: .seconds(30)) {
                    (try? await TestHTTP.noRedirects.get(url: "\(base)/healthz").get().status == .ok) ?? false
                }
                if !up { await cluster.stop(); throw ClusterError.notUp(base) }
            }
            return cluster
        }

        func stop() async {
            for process in processes { process.kill() }
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

    static func request(_ url: String, method: String = "GET", headers: [(String, String)] = [], body: String? = nil) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("a gatewayctl change is served by every replica within 1 s; one refresh token presented to all three at once has one winner, and the reuse revokes the family on every replica; the storage cap holds with writers on every replica")
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

    private func checkTenantChange(_ cluster: Cluster) async throws {
        for round in 1 ... 3 {
            let name = "Cluster \(round)"
            let update = try await ChildProcess.run(ChildProcess.binary("gatewayctl"), ["tenant", "update", "demo", "--display-name", name], environment: cluster.environment)
            try #require(update.status == 0, "gatewayctl: \(update.output)")
            let written = ContinuousClock.now
            for base in cluster.bases {
                let seen = await eventually(within: .seconds(3)) {
                    (try? await Self.json(Self.request("\(base)/t/demo/v1/host-config").body)["displayName"] as? String) == name
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
            #expect(try await Self.request("\(base)/t/demo/v1/me", headers: [("Authorization", "Bearer \(access)")]).status == 200)
        }
        let form = "grant_type=refresh_token&client_id=demo-app&refresh_token=\(refresh)"
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for base in cluster.bases {
                group.addTask {
                    try await Self.request("\(base)/t/demo/oauth2/token", method: "POST",
                                           headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.sorted() == [200, 400, 400], "statuses \(statuses)")
        // The losers' reuse revoked the family: its access tokens are refused everywhere.
        let started = ContinuousClock.now
        for base in cluster.bases {
            let refused = await eventually(within: .seconds(3)) {
                (try? await Self.request("\(base)/t/demo/v1/me", headers: [("Authorization", "Bearer \(access)")]).status) == 401
            }
            #expect(refused, "\(base) still accepts a revoked family's access token")
        }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    private func checkStorageCap(_ cluster: Cluster) async throws {
        let update = try await ChildProcess.run(ChildProcess.binary("gatewayctl"), ["tenant", "update", "demo", "--storage-max-bytes", "1000"], environment: cluster.environment)
        try #require(update.status == 0)
        let access = try #require(try await cluster.tokens(via: 1)["access_token"] as? String)
        let ready = await eventually(within: .seconds(3)) {
            var all = true
            for base in cluster.bases {
                let size = try? await Self.json(Self.request("\(base)/t/demo/v1/me/miniapps/cap-app/storage/size", headers: [("Authorization", "Bearer \(access)")]).body)
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
                    let answer = try await Self.request("\(base)/t/demo/v1/me/miniapps/cap-app/storage", method: "PUT",
                                                        headers: [("Authorization", "Bearer \(access)"), ("Content-Type", "application/json")], body: body)
                    return answer.status == 200
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(accepted == 10)
        for base in cluster.bases {
            let size = try await Self.json(Self.request("\(base)/t/demo/v1/me/miniapps/cap-app/storage/size", headers: [("Authorization", "Bearer \(access)")]).body)
            #expect(size["used"] as? Int == 1000, "\(base): \(size)")
        }
    }
}

extension Process {
    /// A started child process that can be killed from any task (`Process` is not Sendable).
    final class Handle: @unchecked Sendable {
        // @unchecked: `process` is only read after init, and only `isRunning`,
        // `processIdentifier`, `terminationStatus` and `kill` are used on it, which Foundation allows from any thread.
        private let process: Process

        init(_ process: Process) { self.process = process }

        func kill() {
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        }

        var isRunning: Bool { process.isRunning }

        /// The exit status (once it has exited).
        var terminationStatus: Int32 { process.terminationStatus }
    }
}
