import Foundation
import Logging
import NIOCore
import NIOPosix
import ProcessSpawn
import RedisClient

/// A throwaway `redis-server` process on a free local port, for tests only.
///
/// Not `Sendable`: each test owns its server and drives it from its own task.
final class RedisTestServer {
    let port: Int
    let extraArguments: [String]
    /// Set for a TLS-only server (its `port` speaks TLS).
    let tls: RedisTLSConfiguration?
    /// A config file read before the arguments (Sentinel needs a writable one).
    private let configFile: String?
    private var process: SpawnedProcess?

    private init(port: Int, extraArguments: [String], tls: RedisTLSConfiguration? = nil, configFile: String? = nil) {
        self.port = port
        self.extraArguments = extraArguments
        self.tls = tls
        self.configFile = configFile
    }

    deinit {
        self.kill()
    }

    /// Configuration pointing at this server.
    func configuration(password: String? = nil, database: Int = 0) -> RedisConfiguration {
        RedisConfiguration(host: "127.0.0.1", port: self.port, password: password, database: database, tls: self.tls)
    }

    /// Starts a server on a free port (retrying with another port if the chosen one got taken).
    /// With `tls`, the port speaks only TLS, with the certificate pair in `TestCertificates`.
    static func start(
        extraArguments: [String] = [], tls certificates: TestCertificates? = nil
    ) async throws -> RedisTestServer {
        try await self.start { port in
            guard let certificates else { return RedisTestServer(port: port, extraArguments: extraArguments) }
            return RedisTestServer(
                port: port,
                extraArguments: [
                    "--port", "0", "--tls-port", "\(port)", "--tls-cert-file", certificates.serverCertificate,
                    "--tls-key-file", certificates.serverKey, "--tls-ca-cert-file", certificates.authority,
                    "--tls-auth-clients", "no",
                ] + extraArguments,
                tls: RedisTLSConfiguration(caFile: certificates.authority, serverName: "localhost")
            )
        }
    }

    /// Starts `redis-sentinel` watching the master at `masterPort` as `masterName` (quorum 1,
    /// down after 500 ms), with its config file in a fresh temporary folder.
    static func startSentinel(masterPort: Int, masterName: String = "mymaster") async throws -> RedisTestServer {
        try await self.start { port in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sentinel-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("sentinel.conf").path
            try """
            sentinel monitor \(masterName) 127.0.0.1 \(masterPort) 1
            sentinel down-after-milliseconds \(masterName) 500
            sentinel failover-timeout \(masterName) 3000
            dir \(folder.path)

            """.write(toFile: file, atomically: true, encoding: .utf8)
            return RedisTestServer(port: port, extraArguments: ["--sentinel"], configFile: file)
        }
    }

    private static func start(_ make: (Int) throws -> RedisTestServer) async throws -> RedisTestServer {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let server = try make(try await freePort())
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
        process?.kill()
    }

    /// SIGKILLs the server and waits until it has exited.
    func killAndWait() async throws {
        self.kill()
        let process = self.process
        guard await eventually(within: .seconds(5), every: .milliseconds(10), { process?.isRunning != true }) else {
            throw TestServerError.didNotStop
        }
    }

    /// SIGSTOP: the server keeps its sockets (the kernel still accepts connections) but never answers.
    func pause() {
        process?.signal(SIGSTOP)
    }

    /// SIGCONT after `pause()`.
    func resume() {
        process?.signal(SIGCONT)
    }

    private func launch() async throws {
        let arguments =
            (self.configFile.map { [$0] } ?? []) + [
                "--port", "\(self.port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--loglevel", "warning",
                // A replica writes the master's snapshot to its directory: a temporary one.
                "--dir", FileManager.default.temporaryDirectory.path,
            ] + self.extraArguments
        self.process = try SpawnedProcess.start("/usr/bin/redis-server", arguments)
        try await self.waitUntilReady()
    }

    /// Polls with PING until the server answers (an auth error counts as an answer).
    private func waitUntilReady() async throws {
        var exited = false
        let ready = await eventually(within: .seconds(10)) {
            guard let process, process.isRunning else {
                exited = true
                return true
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
            return answered
        }
        if exited { throw TestServerError.didNotStart("redis-server exited (port \(self.port) taken?)") }
        guard ready else { throw TestServerError.didNotStart("no PING answer on port \(self.port)") }
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

/// A throwaway certificate authority and a server certificate it signed for `localhost` (only:
/// no IP address), made with the `openssl` command.
struct TestCertificates {
    let authority: String
    let serverCertificate: String
    let serverKey: String

    static func make() throws -> TestCertificates {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redis-tls-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = """
            set -e
            cd '\(folder)'
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr -subj /CN=localhost
            printf 'subjectAltName=DNS:localhost\\n' > san.ext
            openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile san.ext
            """
        let status = try SpawnedProcess.start("/bin/sh", ["-c", script]).waitUntilExit()
        guard status == 0 else {
            throw TestServerError.didNotStart("openssl failed (\(status))")
        }
        return TestCertificates(
            authority: "\(folder)/ca.crt", serverCertificate: "\(folder)/server.crt", serverKey: "\(folder)/server.key")
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
