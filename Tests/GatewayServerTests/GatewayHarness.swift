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

    /// Creates `tenant` through an operator store and waits until the gateway serves it.
    func createTenant(_ tenant: Tenant) async throws {
        try await operatorStore().create(tenant, actor: "test")
        let directory = bootstrap.services.directory
        let seen = await eventually { directory.tenant(tenant.id) != nil }
        #expect(seen, "tenant \(tenant.id) not loaded")
    }

    /// Changes a tenant through an operator store and waits until the snapshot has it.
    func updateTenant(_ id: String, _ change: @escaping @Sendable (inout Tenant) -> Void) async throws {
        let before = bootstrap.services.directory.tenant(id)?.configVersion ?? 0
        _ = try await operatorStore().update(id: id, actor: "test", change)
        let directory = bootstrap.services.directory
        let seen = await eventually { (directory.tenant(id)?.configVersion ?? 0) > before }
        #expect(seen, "tenant \(id) change not loaded")
    }

    /// A tenant whose platform is `fake`.
    static func tenant(_ id: String, on fake: FakePlatform, preview: Bool = false, requireSignature: Bool = false, manifestTTL: Int = 300) -> Tenant {
        Tenant(
            id: id,
            displayName: id.capitalized,
            platform: PlatformSettings(
                baseURL: fake.baseURL, projectID: fake.projectID, subscriptionKey: SecretValue(fake.subscriptionKey),
                previewMode: preview, requireSignatureVerification: requireSignature
            ),
            cacheTTLs: CacheTTLs(manifestSeconds: manifestTTL, catalogSeconds: manifestTTL)
        )
    }

    /// A fixed test key (32 bytes of 0x2A), so operator stores and gatewayctl runs agree.
    static let masterKeyBase64 = Data(repeating: 42, count: 32).base64EncodedString()

    static func configuration(in folder: URL, useRedis: Bool = true, redisURL: String? = nil, upstreamBudget: Duration = .seconds(5), rateLimits: RateLimiter.Limits = .init(), homePartBudget: Duration = .milliseconds(800)) -> GatewayConfiguration {
        GatewayConfiguration(
            host: "127.0.0.1",
            port: 0,
            databasePath: folder.appendingPathComponent("gateway.sqlite").path,
            redisURL: redisURL ?? (useRedis ? ProcessInfo.processInfo.environment["REDIS_URL"] : nil),
            masterKeyBase64: masterKeyBase64,
            environment: .development,
            logLevel: .warning,
            tenantReloadInterval: .milliseconds(100),
            upstreamBudget: upstreamBudget,
            homePartBudget: homePartBudget,
            rateLimits: rateLimits
        )
    }

    /// Starts the gateway, runs `body` with the harness and a generated client, stops it.
    static func withGateway<T: Sendable>(
        useRedis: Bool = true,
        redisURL: String? = nil,
        upstreamBudget: Duration = .seconds(5),
        rateLimits: RateLimiter.Limits = .init(),
        homePartBudget: Duration = .milliseconds(800),
        _ body: @Sendable (GatewayHarness, Client, Int) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = configuration(in: folder, useRedis: useRedis, redisURL: redisURL, upstreamBudget: upstreamBudget, rateLimits: rateLimits, homePartBudget: homePartBudget)
        var logger = Logger(label: "test-gateway")
        logger.logLevel = .warning
        let bootstrap = try await GatewayBootstrap.start(configuration: configuration, logger: logger)
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
                transport: AsyncHTTPClientTransport()
            )
            return try await body(harness, client, port)
        }
    }
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
