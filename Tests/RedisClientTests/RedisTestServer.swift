import Foundation
import Logging
import NIOCore
import NIOPosix
import RedisClient

/// A throwaway `redis-server` process on a free local port, for tests only.
///
/// Not `Sendable`: each test owns its server and drives it from its own task.
final class RedisTestServer {
    let port: Int
    let extraArguments: [String]
    private var process: Process?

    private init(port: Int, extraArguments: [String]) {
        self.port = port
        self.extraArguments = extraArguments
    }

    deinit {
        self.kill()
    }

    /// Configuration pointing at this server.
    func configuration(password: String? = nil, database: Int = 0) -> RedisConfiguration {
        RedisConfiguration(host: "127.0.0.1", port: self.port, password: password, database: database)
    }

    /// Starts a server on a free port (retrying with another port if the chosen one got taken).
    static func start(extraArguments: [String] = []) async throws -> RedisTestServer {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let server = RedisTestServer(port: try await freePort(), extraArguments: extraArguments)
            do {
                try await server.launch()
                return server
            } catch {
                lastError = error
                server.kill()
            }
        }
        throw lastError ?? TestServerError.didNotStart("unknown")
    }

    /// Starts redis-server again on the same port (after `kill()`).
    func restart() async throws {
        try await self.launch()
    }

    /// SIGKILLs the server, without waiting.
    func kill() {
        if let process, process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }
    }

    /// SIGKILLs the server and waits until it has exited.
    func killAndWait() async throws {
        self.kill()
        let deadline = ContinuousClock.now + .seconds(5)
        while let process, process.isRunning {
            guard ContinuousClock.now < deadline else { throw TestServerError.didNotStop }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// SIGSTOP: the server keeps its sockets (the kernel still accepts connections) but never answers.
    func pause() {
        if let process { Foundation.kill(process.processIdentifier, SIGSTOP) }
    }

    /// SIGCONT after `pause()`.
    func resume() {
        if let process { Foundation.kill(process.processIdentifier, SIGCONT) }
    }

    private func launch() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = [
            "--port", "\(self.port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--daemonize", "no", "--loglevel", "warning",
        ] + self.extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        try await self.waitUntilReady()
    }

    /// Polls with PING until the server answers (an auth error counts as an answer).
    private func waitUntilReady() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let process, process.isRunning else {
                throw TestServerError.didNotStart("redis-server exited (port \(self.port) taken?)")
            }
            var configuration = self.configuration()
            configuration.poolSize = 1
            configuration.commandTimeout = .seconds(1)
            var quiet = Logger(label: "redis-test-probe")
            quiet.logLevel = .critical  // connection refused is expected while redis starts
            let probe = RedisClient(configuration: configuration, logger: quiet)
            var answered = false
            do {
                try await probe.ping()
                answered = true
            } catch RedisError.server {
                answered = true  // NOAUTH: it is up
            } catch {}
            await probe.shutdown()
            if answered { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestServerError.didNotStart("no PING answer on port \(self.port)")
    }

    /// Binds port 0 to let the kernel pick a free port, then releases it.
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let port = channel.localAddress?.port
        try await channel.close()
        guard let port else { throw TestServerError.didNotStart("no local port") }
        return port
    }
}

enum TestServerError: Error {
    case didNotStart(String)
    case didNotStop
}

/// A configuration for tests that need no special server: `REDIS_URL` if set, else a fresh server.
/// The returned server (if any) must be kept alive for the duration of the test.
func simpleTestServer() async throws -> (RedisConfiguration, RedisTestServer?) {
    if let url = ProcessInfo.processInfo.environment["REDIS_URL"], !url.isEmpty {
        return (try RedisConfiguration(url: url), nil)
    }
    let server = try await RedisTestServer.start()
    return (server.configuration(), server)
}

/// A random key prefix so tests never collide, even on a shared `REDIS_URL` server.
func uniquePrefix(_ name: String) -> String {
    "test:\(name):\(UInt64.random(in: 0...UInt64.max)):"
}

/// UTF-8 bytes of `string`.
func bytes(_ string: String) -> [UInt8] {
    Array(string.utf8)
}
