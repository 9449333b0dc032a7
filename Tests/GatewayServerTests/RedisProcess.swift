import Foundation

/// A throwaway `redis-server` on a free loopback port that a test can kill and start again
/// (empty: no persistence).
final class RedisProcess: Sendable {
    let port: Int
    private let process: LockedProcess

    /// The URL of this server.
    var url: String { "redis://127.0.0.1:\(port)/0" }

    private init(port: Int) {
        self.port = port
        process = LockedProcess()
    }

    static func start() async throws -> RedisProcess {
        let server = RedisProcess(port: try freeTCPPort())
        try await server.launch()
        return server
    }

    /// Starts (again) on the same port, with no data.
    func launch() async throws {
        let redis = Process()
        redis.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        redis.arguments = ["redis-server", "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        redis.standardOutput = FileHandle.nullDevice
        try redis.run()
        process.set(redis)
        try await Task.sleep(for: .milliseconds(300))
    }

    /// SIGKILLs the server and waits until it is gone (polling: waitUntilExit() would block
    /// a cooperative thread). SIGKILL because the test process ignores SIGTERM
    /// (ServiceLifecycle), and children inherit that.
    func kill() async {
        guard let redis = process.get(), redis.isRunning else { return }
        Foundation.kill(redis.processIdentifier, SIGKILL)
        for _ in 0..<40 where redis.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
    }

    deinit {
        if let redis = process.get(), redis.isRunning { Foundation.kill(redis.processIdentifier, SIGKILL) }
    }
}

/// The current `Process` behind a lock (`Process` is not Sendable; it is only read and
/// signalled here).
private final class LockedProcess: @unchecked Sendable {
    // @unchecked: every access to `process` goes through `lock`.
    private let lock = NSLock()
    private var process: Process?

    func set(_ process: Process) { lock.withLock { self.process = process } }
    func get() -> Process? { lock.withLock { process } }
}
