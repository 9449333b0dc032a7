import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import GatewayServer
import Hummingbird
import HummingbirdTesting
import Logging
import OpenAPIAsyncHTTPClient
import Testing

/// A real gateway for one test: fresh SQLite file in a temp folder, Redis from
/// `REDIS_URL` when `make test` provides one (else the in-process cache), bound to a
/// free port, and the OpenAPI-generated client pointed at it.
struct GatewayHarness {
    let configuration: GatewayConfiguration
    let bootstrap: GatewayBootstrap
    let folder: URL

    /// A second store on the same file: what `gatewayctl` (another process) writes through.
    func operatorStore() throws -> SQLiteTenantStore {
        let key = try MasterKey(base64: Self.masterKeyBase64)
        return try SQLiteTenantStore.open(path: configuration.databasePath, sealer: SecretSealer(masterKey: key))
    }

    /// A fixed test key (32 bytes of 0x2A), so operator stores and gatewayctl runs agree.
    static let masterKeyBase64 = Data(repeating: 42, count: 32).base64EncodedString()

    static func configuration(in folder: URL, useRedis: Bool = true) -> GatewayConfiguration {
        GatewayConfiguration(
            host: "127.0.0.1",
            port: 0,
            databasePath: folder.appendingPathComponent("gateway.sqlite").path,
            redisURL: useRedis ? ProcessInfo.processInfo.environment["REDIS_URL"] : nil,
            masterKeyBase64: masterKeyBase64,
            environment: .development,
            logLevel: .warning,
            tenantReloadInterval: .milliseconds(100)
        )
    }

    /// Starts the gateway, runs `body` with the harness and a generated client, stops it.
    static func withGateway<T: Sendable>(
        useRedis: Bool = true,
        seedDemoSignIn: Bool = false,
        _ body: @Sendable (GatewayHarness, Client, Int) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = configuration(in: folder, useRedis: useRedis)
        var logger = Logger(label: "test-gateway")
        logger.logLevel = .warning
        let bootstrap = try await GatewayBootstrap.start(
            configuration: configuration, seedDemoSignIn: seedDemoSignIn,
            // Cheaper scrypt for the decoy checks of unknown users: the suite runs many gateways at once.
            passwordHasher: PasswordHasher(logN: 12),
            // Every test signs in from 127.0.0.1 against the shared Redis: only the per-user limit applies.
            loginLimits: .init(perUser: 5, perAddress: 1_000_000), logger: logger)
        let app = try GatewayApplication.make(
            host: configuration.host,
            port: 0,
            services: bootstrap.services,
            backgroundServices: bootstrap.backgroundServices,
            logger: logger
        )
        let harness = GatewayHarness(configuration: configuration, bootstrap: bootstrap, folder: folder)
        return try await app.test(.live) { testClient in
            let port = try #require(testClient.port)
            let client = Client(
                serverURL: URL(string: "http://127.0.0.1:\(port)")!,
                transport: AsyncHTTPClientTransport(configuration: .init(client: TestHTTP.noRedirects))
            )
            return try await body(harness, client, port)
        }
    }
}

/// An HTTP client that never follows redirects (OAuth tests inspect `Location`). Lives
/// for the whole test process.
enum TestHTTP {
    static let noRedirects = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: .init(redirectConfiguration: .disallow)
    )
}

/// Polls `condition` every 50 ms until it holds or `timeout` passes; returns whether it held.
func eventually(within timeout: Duration = .seconds(2), _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
