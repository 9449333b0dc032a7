import Foundation
import ProcessSpawn
import Synchronization

/// A throwaway `redis-server` on a free loopback port that a test can kill and start again
/// (empty: no persistence).
final class RedisProcess: Sendable {
    let port: Int
    /// Leading arguments (a config file) and extra ones.
    private let configFile: String?
    private let extraArguments: [String]
    private let process = Mutex<SpawnedProcess?>(nil)

    /// The URL of this server.
    var url: String { "redis://127.0.0.1:\(port)/0" }

    private init(port: Int, configFile: String? = nil, extraArguments: [String] = []) {
        self.port = port
        self.configFile = configFile
        self.extraArguments = extraArguments
    }

    /// A server; `replicaOf` makes it a replica of that one.
    static func start(replicaOf master: RedisProcess? = nil) async throws -> RedisProcess {
        let server = RedisProcess(
            port: try freeTCPPort(), extraArguments: master.map { ["--replicaof", "127.0.0.1", "\($0.port)"] } ?? [])
        try await server.launch()
        return server
    }

    /// A `redis-sentinel` watching `master` as `mymaster` (quorum 1, down after 500 ms).
    static func startSentinel(watching master: RedisProcess) async throws -> RedisProcess {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sentinel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("sentinel.conf").path
        try
            "sentinel monitor mymaster 127.0.0.1 \(master.port) 1\nsentinel down-after-milliseconds mymaster 500\nsentinel failover-timeout mymaster 3000\ndir \(folder.path)\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let sentinel = RedisProcess(port: try freeTCPPort(), configFile: file, extraArguments: ["--sentinel"])
        try await sentinel.launch()
        return sentinel
    }

    /// Starts (again) on the same port, with no data.
    func launch() async throws {
        let arguments =
            ["redis-server"] + (configFile.map { [$0] } ?? [])
            + ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            // A replica writes the master's snapshot to its directory: a temporary one.
            + ["--dir", FileManager.default.temporaryDirectory.path] + extraArguments
        let redis = try SpawnedProcess.start("/usr/bin/env", arguments, standardError: .inherit)
        process.withLock { $0 = redis }
        // Up once it accepts a connection (it listens only after loading its configuration).
        let port = port
        guard
            await eventually(
                within: .seconds(10),
                {
                    guard let connection = try? await RawConnection.connect(port: port) else { return false }
                    await connection.close()
                    return true
                })
        else {
            throw CocoaError(
                .executableLoad, userInfo: [NSLocalizedDescriptionKey: "redis-server did not listen on \(port)"])
        }
    }

    /// SIGKILLs the server and waits until it is gone.
    func kill() async {
        guard let redis = process.withLock({ $0 }) else { return }
        redis.kill()
        _ = await redis.exitStatus()
    }

    deinit {
        process.withLock { $0?.kill() }
    }
}
