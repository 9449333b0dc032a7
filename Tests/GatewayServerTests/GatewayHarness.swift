import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import GatewaySQLite
import GatewayPostgres
import GatewayServer
import Hummingbird
import HummingbirdTesting
import Logging
import OpenAPIAsyncHTTPClient
import ServiceLifecycle
import Testing

/// A real gateway for one test: a fresh database (SQLite file in a temp folder, or a
/// PostgreSQL schema of its own), Redis from `REDIS_URL` when `make test` provides one
/// (else the in-process cache), bound to a free port, and the OpenAPI-generated client
/// pointed at it.
struct GatewayHarness {
    let configuration: GatewayConfiguration
    let bootstrap: GatewayBootstrap
    let folder: URL
    /// Signed-in test users, one per tenant (see ``SignedInUserMiddleware``).
    let users: SignedInUsers
    /// Second stores on the same database, with their own connections: what `gatewayctl`
    /// (another process) writes through.
    let operatorStores: DurableStores

    /// The operator's tenant store.
    func operatorStore() -> any TenantStore {
        operatorStores.tenants
    }

    /// Opens the database of `configuration` as another process would.
    static func openOperatorStores(_ configuration: GatewayConfiguration) async throws -> DurableStores {
        let sealer = SecretSealer(masterKey: try MasterKey(base64: masterKeyBase64))
        if let url = configuration.databaseURL {
            return try await PostgresStores.open(url: url, sealer: sealer, logger: DatabaseBackend.quiet)
        }
        return try SQLiteTenantStore.open(path: configuration.databasePath, sealer: sealer).durableStores()
    }

    /// Creates `tenant` through an operator store and waits until the gateway serves it.
    func createTenant(_ tenant: Tenant, signIn: Bool = true) async throws {
        try await operatorStore().create(tenant, actor: "test")
        let directory = bootstrap.services.directory
        // A precondition, not the 2 s requirement (HostConfigEndToEndTests asserts that):
        // generous, so a loaded machine does not fail unrelated tests here.
        let seen = await eventually(within: .seconds(10)) { directory.tenant(tenant.id) != nil }
        #expect(seen, "tenant \(tenant.id) not loaded")
        // Sign the tenant's test user in now, so timed requests do not pay for it.
        if signIn, tenant.status == .active { _ = try await users.accessToken(tenant: tenant.id) }
    }

    /// Changes a tenant through an operator store and waits until the snapshot has it.
    func updateTenant(_ id: String, _ change: @escaping @Sendable (inout Tenant) -> Void) async throws {
        let before = bootstrap.services.directory.tenant(id)?.configVersion ?? 0
        _ = try await operatorStore().update(id: id, actor: "test", change)
        let directory = bootstrap.services.directory
        let seen = await eventually(within: .seconds(10)) { (directory.tenant(id)?.configVersion ?? 0) > before }
        #expect(seen, "tenant \(id) change not loaded")
    }

    /// Makes every cached answer of tenant `id` cold: a new provisioning super-app version
    /// (`round`) changes the upstream settings the answer keys digest, without changing what
    /// a tenant with no provisioning URL asks (a rename keeps the answers).
    func coldAnswers(_ id: String, round: String) async throws {
        try await updateTenant(id) { $0.provisioning.superAppVersion = round }
    }

    /// A tenant whose platform is `fake`.
    static func tenant(
        _ id: String, on fake: FakePlatform, preview: Bool = false, requireSignature: Bool = false,
        manifestTTL: Int = 300
    ) -> Tenant {
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

    static func configuration(
        in folder: URL, useRedis: Bool = true, redisURL: String? = nil, upstreamBudget: Duration = .seconds(5),
        rateLimits: RateLimiter.Limits = .init(),
        homePartBudget: Duration = .milliseconds(800), connectionLimits: ConnectionLimits = .init(),
        bodyLimits: BodyLimits = .init(),
        publicBaseURL: String? = nil
    ) -> GatewayConfiguration {
        GatewayConfiguration(
            host: "127.0.0.1",
            port: 0,
            publicBaseURL: publicBaseURL,
            databasePath: folder.appendingPathComponent("gateway.sqlite").path,
            redisURL: redisURL ?? (useRedis ? ProcessInfo.processInfo.environment["REDIS_URL"] : nil),
            masterKeyBase64: masterKeyBase64,
            environment: .development,
            logLevel: .warning,
            tenantReloadInterval: .milliseconds(100),
            upstreamBudget: upstreamBudget,
            homePartBudget: homePartBudget,
            rateLimits: rateLimits,
            connectionLimits: connectionLimits,
            bodyLimits: bodyLimits
        )
    }

    /// Starts the gateway, runs `body` with the harness and a generated client, stops it.
    static func withGateway<T: Sendable>(
        useRedis: Bool = true,
        seedDemoSignIn: Bool = false,
        redisURL: String? = nil,
        upstreamBudget: Duration = .seconds(5),
        rateLimits: RateLimiter.Limits = .init(),
        homePartBudget: Duration = .milliseconds(800),
        connectionLimits: ConnectionLimits = .init(),
        proxies: ProxySettings = .init(),
        accessLog: Bool = false,
        bodyLimits: BodyLimits = .init(),
        folder existing: URL? = nil,
        publicBaseURL: String? = nil,
        logger given: Logger? = nil,
        backend: DatabaseBackend = .sqlite,
        database existingURL: String? = nil,
        clock: WallClock = .system,
        push: PushEndpoints? = nil,
        pushSendQuota: Int = SendQuota.defaultPerMinute,
        courier: Bool = true,
        databaseTimeout: Duration = .seconds(10),
        databaseProbe: Duration = .seconds(1),
        nearCacheLifetime: Duration = .seconds(1),
        _ body: @Sendable (GatewayHarness, Client, Int) async throws -> T
    ) async throws -> T {
        // A given folder (a database shared by gateways run one after the other) is the caller's to remove.
        let folder =
            existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("gw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if existing == nil { try? FileManager.default.removeItem(at: folder) } }
        var configuration = configuration(
            in: folder, useRedis: useRedis, redisURL: redisURL, upstreamBudget: upstreamBudget, rateLimits: rateLimits,
            homePartBudget: homePartBudget,
            connectionLimits: connectionLimits, bodyLimits: bodyLimits, publicBaseURL: publicBaseURL)
        configuration.proxies = proxies
        configuration.accessLog = accessLog
        // No delivery worker unless the test names the providers' fakes: queued deliveries stay put.
        configuration.pushConcurrency = push == nil ? 0 : 8
        configuration.pushSendQuotaPerMinute = pushSendQuota
        // The courier works unless a test drives its own worker.
        configuration.courierConcurrency = courier ? 4 : 0
        // The console's traffic figures reach the shared cache within a second.
        configuration.trafficFlushInterval = .seconds(1)
        configuration.databaseTimeout = databaseTimeout
        // PostgreSQL's breaker opens only after two probes go unanswered for over a second each:
        // a suite of gateways on two cores must not trip it (DatabaseBreakerTests use the default).
        configuration.databaseProbeInterval = databaseProbe
        configuration.nearCacheLifetime = nearCacheLifetime
        if let push {
            configuration.pushFCMURL = push.fcm ?? configuration.pushFCMURL
            configuration.pushAPNsURL = push.apns
        }
        var schema: String?
        if let existingURL {
            // A PostgreSQL database shared by gateways run one after the other: the caller's to drop.
            configuration.databaseURL = existingURL
        } else if backend == .postgres {
            let made = try await DatabaseBackend.makeSchema()
            configuration.databaseURL = made.url
            schema = made.schema
        }
        defer { if let schema { Task { await DatabaseBackend.dropSchema(schema) } } }
        var logger = given ?? Logger(label: "test-gateway")
        logger.logLevel = accessLog ? .notice : .warning
        let bootstrap = try await GatewayBootstrap.start(
            configuration: configuration, seedDemoSignIn: seedDemoSignIn,
            // Cheaper scrypt for the decoy checks of unknown users: the suite runs many gateways at once.
            passwordHasher: PasswordHasher(logN: 12),
            // Every test signs in from 127.0.0.1 against the shared Redis: no per-address slowdown.
            loginPolicy: .init(addressFailuresBeforeSlowdown: .max), clock: clock, logger: logger)
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = try GatewayApplication.make(
            host: configuration.host,
            port: 0,
            services: bootstrap.services,
            backgroundServices: bootstrap.backgroundServices,
            limits: configuration.connectionLimits,
            proxies: configuration.proxies,
            logger: logger,
            onServerRunning: { portContinuation.yield($0) }
        )
        // The application runs as in production (HummingbirdTesting's live mode rebuilds
        // the configuration and drops the connection cap).
        let serviceGroup = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await serviceGroup.run() }
            do {
                var iterator = ports.makeAsyncIterator()
                guard let port = await iterator.next() else { throw CancellationError() }
                let users = SignedInUsers(port: port)
                let operatorStores = try await openOperatorStores(configuration)
                defer { Task { await operatorStores.close() } }
                let harness = GatewayHarness(
                    configuration: configuration, bootstrap: bootstrap, folder: folder, users: users,
                    operatorStores: operatorStores)
                users.attach(harness)
                let client = Client(
                    serverURL: URL(string: "http://127.0.0.1:\(port)")!,
                    transport: AsyncHTTPClientTransport(configuration: .init(client: TestHTTP.noRedirects)),
                    middlewares: [SignedInUserMiddleware(users: users), RawHeaderValuesMiddleware()]
                )
                let value = try await body(harness, client, port)
                await serviceGroup.triggerGracefulShutdown()
                try await group.waitForAll()
                return value
            } catch {
                await serviceGroup.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }
}

/// Where a harness gateway's delivery worker finds the push providers (fakes).
struct PushEndpoints: Sendable {
    var fcm: String?
    var apns: String?
}

/// An HTTP client that never follows redirects (OAuth tests inspect `Location`). Lives
/// for the whole test process.
enum TestHTTP {
    static let noRedirects = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: .init(redirectConfiguration: .disallow)
    )
}

/// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether it
/// held. The one place these tests wait on the wall clock for something to happen elsewhere.
func eventually(
    within timeout: Duration = .seconds(2), every interval: Duration = .milliseconds(20),
    _ condition: @Sendable () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
