import AsyncHTTPClient
import Foundation
import GatewayPostgres
import NIOCore
import ProcessSpawn
import Synchronization
import Testing
@testable import GatewayCore
@testable import GatewaySQLite

/// Guarantees that must hold between processes, not only between tasks: real `gatewayctl`
/// and `gateway` processes on one database.
@Suite("Across processes: concurrent gatewayctl writers, a gateway killed mid-write")
struct CrossProcessTests {
    /// The database of one test and how a child process reaches it.
    struct Database {
        let folder: URL
        let environment: [String: String]
        let schema: String?

        static func make(_ backend: DatabaseBackend) async throws -> Database {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gw-procs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var environment = [
                "GATEWAY_DATABASE_PATH": folder.appendingPathComponent("gateway.sqlite").path,
                "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64, "USER": "tester", "GATEWAY_LOG_LEVEL": "error",
            ]
            var schema: String?
            if backend == .postgres {
                let made = try await DatabaseBackend.makeSchema()
                environment["GATEWAY_DATABASE_URL"] = made.url
                schema = made.schema
            }
            return Database(folder: folder, environment: environment, schema: schema)
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
            if let schema { Task { await DatabaseBackend.dropSchema(schema) } }
        }

        /// Opens the stores as a third process would (the test's view).
        func stores() async throws -> DurableStores {
            var configuration = GatewayHarness.configuration(in: folder)
            configuration.databaseURL = environment["GATEWAY_DATABASE_URL"]
            return try await GatewayHarness.openOperatorStores(configuration)
        }
    }

    /// Two `gatewayctl` processes each add 12 feature flags to one tenant, one update per
    /// process run, at the same time: no update is lost, and every version has its audit row.
    @Test(arguments: DatabaseBackend.available)
    func concurrentTenantUpdates(backend: DatabaseBackend) async throws {
        let database = try await Database.make(backend)
        defer { database.remove() }
        let ctl = ChildProcess.binary("gatewayctl")
        let created = try await ChildProcess.run(
            ctl, ["tenant", "create", "acme", "--display-name", "Acme"], environment: database.environment)
        #expect(created.status == 0)
        let rounds = 12
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in ["a", "b"] {
                group.addTask {
                    for round in 0..<rounds {
                        let result = try await ChildProcess.run(
                            ctl, ["tenant", "update", "acme", "--flag", "\(writer)-\(round)=true"],
                            environment: database.environment)
                        #expect(result.status == 0, "\(writer)-\(round): \(result.output)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let stores = try await database.stores()
        let tenant = try #require(try await stores.tenants.tenant(id: "acme"))
        #expect(tenant.featureFlags.count == 2 * rounds, "lost updates: \(tenant.featureFlags.keys.sorted())")
        #expect(tenant.configVersion == Int64(1 + 2 * rounds))
        let audit = try await stores.tenants.auditLog(tenantID: "acme", limit: 1_000)
        #expect(audit.count == 1 + 2 * rounds)
        #expect(Set(audit.map(\.configVersion)).count == audit.count)
        await stores.close()
    }

    /// A gateway process takes 20-item storage writes from 8 clients and is killed (SIGKILL)
    /// in the middle. Afterwards every write is there whole or not at all, and each owner's
    /// usage row matches the items stored.
    @Test(arguments: DatabaseBackend.available)
    func gatewayKilledMidWrite(backend: DatabaseBackend) async throws {
        let database = try await Database.make(backend)
        defer { database.remove() }
        let port = try freeTCPPort()
        var environment = database.environment
        environment["GATEWAY_HTTP_PORT"] = "\(port)"
        environment["GATEWAY_DEMO_CATALOG"] = ""
        let gateway = try ChildProcess.start(ChildProcess.binary("gateway"), ["serve"], environment: environment)
        defer { if gateway.isRunning { kill(gateway.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(port)"
        let up = await eventually(within: .seconds(20)) {
            (try? await TestHTTP.noRedirects.get(url: "\(base)/healthz").get().status == .ok) ?? false
        }
        try #require(up, "gateway did not start")
        let token = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", RepositoryFile.url("scripts/demo-token.py").path, base,
                database.folder.appendingPathComponent("demo-user.txt").path,
            ],
            environment: ProcessInfo.processInfo.environment)
        let bearer = token.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(token.status == 0 && !bearer.isEmpty)

        let stored = Counter()
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for writer in 0 ..< 8 {
                    group.addTask {
                        for batch in 0..<10_000 {
                            let items = (0..<20).map {
                                "\"w\(writer)b\(batch)-k\($0)\":\"\(String(repeating: "v", count: 40))\""
                            }.joined(separator: ",")
                            var request = HTTPClientRequest(
                                url: "\(base)/t/demo/v1/me/miniapps/app-\(writer % 2)/storage")
                            request.method = .PUT
                            request.headers.add(name: "Authorization", value: "Bearer \(bearer)")
                            request.headers.add(name: "Content-Type", value: "application/json")
                            request.body = .bytes(ByteBuffer(string: "{\"items\":{\(items)}}"))
                            guard let response = try? await TestHTTP.noRedirects.execute(request, timeout: .seconds(5)),
                                response.status == .ok
                            else { return }
                            _ = try? await response.body.collect(upTo: 1 << 16)
                            stored.add()
                        }
                    }
                }
            }
        }
        let writing = await eventually(within: .seconds(10)) { stored.value >= 40 }
        try #require(writing, "writes did not get going")
        kill(gateway.processIdentifier, SIGKILL)
        await writers.value

        let stores = try await database.stores()
        defer { Task { await stores.close() } }
        let keys: [String]
        if let url = database.environment["GATEWAY_DATABASE_URL"] {
            let raw = try PostgresDatabase(
                url: url, sealer: SecretSealer(masterKey: .generate()), logger: DatabaseBackend.quiet)
            keys = try await raw.texts(unsafeSQL: "SELECT key FROM secure_storage_items")
            await raw.shutdown()
        } else {
            let raw = try SQLiteTenantStore(
                path: database.environment["GATEWAY_DATABASE_PATH"]!, sealer: SecretSealer(masterKey: .generate()),
                migrate: false)
            keys = try raw.texts(sql: "SELECT key FROM secure_storage_items")
        }
        let batches = Dictionary(grouping: keys) { String($0.prefix { $0 != "-" }) }
        #expect(batches.count >= stored.value, "acknowledged writes are missing")
        #expect(
            batches.values.allSatisfy { $0.count == 20 },
            "half-written batches: \(batches.filter { $0.value.count != 20 }.keys.sorted())")
        let usage = try await stores.storage.usage(tenantID: "demo", userID: nil)
        #expect(usage.reduce(0) { $0 + $1.itemCount } == keys.count)
        #expect(usage.reduce(Int64(0)) { $0 + $1.usedBytes } == Int64(keys.reduce(0) { $0 + $1.utf8.count + 40 }))
    }
}

/// A thread-safe count.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
