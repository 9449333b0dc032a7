import Foundation
import GatewayCore
import GatewaySQLite
import GatewayPostgres
import Logging
import RedisClient
import Tracing
import ServiceLifecycle

/// Opens everything a gateway process needs from its configuration: master key, durable
/// stores (PostgreSQL when a database URL is set, else the SQLite file; migrated; `demo`
/// seeded in development when empty), cache (Redis when a URL is configured, else
/// in-process), tenant snapshot, metrics and readiness checks.
public struct GatewayBootstrap: Sendable {
    public let services: GatewayServices
    /// Every durable store, on the configured backend.
    public let stores: DurableStores
    /// Clients, users, signing keys and refresh families (same database).
    public var authStore: any AuthStore { stores.auth }
    /// Services that run beside the HTTP server (tenant reload, Redis shutdown).
    public let backgroundServices: [any Service]
    /// Set when a graceful shutdown begins; readiness fails from then on.
    public let drain: DrainState

    /// - Parameters:
    ///   - seedDemoSignIn: in development, also seed the `demo` tenant's client and user
    ///     (scrypt work; tests that do not sign in as `demo` turn it off).
    ///   - passwordHasher: the scrypt cost for new hashes and for the decoy check of unknown
    ///     users (stored hashes carry their own cost).
    ///   - loginPolicy: how sign-in guessing is slowed (see ``LoginThrottle``).
    ///   - tracer: when set, a span per request and trace context on upstream calls.
    ///   - clock: the wall clock of tokens, throttles and rate windows (tests move their own).
    public static func start(
        configuration: GatewayConfiguration, metrics: GatewayMetrics = GatewayMetrics(), seedDemoSignIn: Bool = true,
        passwordHasher: PasswordHasher = PasswordHasher(), loginPolicy: LoginThrottle.Policy = .init(),
        tracer: (any Tracer)? = nil, clock: WallClock = .system, logger: Logger
    ) async throws -> GatewayBootstrap {
        let development = configuration.environment == .development
        let (masterKey, keySource) = try MasterKey.resolve(
            base64: configuration.masterKeyBase64,
            file: configuration.masterKeyFile,
            databasePath: configuration.databasePath,
            developmentMode: development
        )
        if case .generated(let path) = keySource {
            logger.warning(
                "DEVELOPMENT MODE: generated a new master key at \(path). Secrets sealed with it are lost if it is lost; set GATEWAY_MASTER_KEY in production."
            )
        }
        let breaker = databaseBreaker(configuration, metrics: metrics, logger: logger)
        let sealer = SecretSealer(masterKey: masterKey)
        let stores = try await openStores(
            configuration, sealer: sealer, breaker: breaker, logger: logger)
        let store = stores.tenants
        if development, try await DemoTenant.seedIfEmpty(store: store, actor: "gateway") {
            try await DemoTenant.seedLinkDomainIfFree(domains: stores.domains)
            logger.notice(
                "seeded tenant '\(DemoTenant.id)' (deep links on \(DemoTenant.linkHost)) into an empty database",
                metadata: ["database": "\(stores.location)"])
        }
        if let poolUsage = stores.poolUsage {
            metrics.sampledGauge(
                "gateway_postgres_connections_in_use",
                "PostgreSQL connections held by statements and transactions right now."
            ) { Double(poolUsage().inUse) }
            metrics.sampledGauge(
                "gateway_postgres_pool_size", "The most connections the PostgreSQL pool opens (pool_size)."
            ) { Double(poolUsage().size) }
        }
        let releaseTable = ReleaseTable(store: stores.releases)
        let releaseMetrics = ReleaseMetrics(table: releaseTable, clock: clock, factory: metrics.factory)
        metrics.beforeExposition { releaseMetrics.sample() }
        // Signing keys follow the directory: a `gatewayctl keys` change is read within the change
        // feed's delay; what a key does at a time is decided by its stored schedule.
        let keyRing = KeyRing(store: stores.auth, clock: clock)
        let directory = TenantDirectory(
            store: store, signal: stores.tenantChanges, pollInterval: configuration.tenantReloadInterval,
            followers: [releaseTable, keyRing], logger: logger
        )
        try await directory.reload()

        var background = BackgroundServices(
            closeStores: ShutdownActionService { await stores.close() },
            tenantReload: TenantDirectoryService(directory: directory))
        let drain = DrainState()
        var checks = [drain.check, ReadinessProbe.Check(name: stores.backend) { try await store.ping() }]
        let shared = try openCache(configuration, metrics: metrics, logger: logger)
        let cache = shared.cache
        let revocationFeed = shared.revocationFeed
        let revocationMirror = RevocationMirror()
        if let check = shared.check { checks.append(check) }
        background.closeRedis = shared.close
        let instrumented = InstrumentedCache(cache, factory: metrics.factory)
        // Revocations: durable in the database, announced through Redis when there is one.
        let durableRevocations = stores.revocations
        if let probe = stores.breakerProbe, configuration.databaseProbeInterval != nil {
            background.loops.append(RetentionService { await probe() })
        }
        let revocationSync = RevocationSync(
            mirror: revocationMirror, feed: revocationFeed, durable: durableRevocations, logger: logger)
        background.loops.append(RevocationSyncService(sync: revocationSync, cursor: try await revocationSync.start()))
        let authStore = stores.auth
        if development, seedDemoSignIn,
            try await DemoAuth.seedIfMissing(
                tenants: store, store: authStore, tenantID: DemoTenant.id,
                passwordFile: URL(fileURLWithPath: configuration.databasePath).deletingLastPathComponent()
                    .appendingPathComponent("demo-user.txt").path,
                logger: logger)
        {
            logger.notice(
                "seeded OAuth client '\(DemoAuth.clientID)' and user '\(DemoAuth.username)' into tenant '\(DemoTenant.id)' (development only)"
            )
        }
        let http = UpstreamHTTPClientFactory.make(
            connectionsPerHost: configuration.upstreamConnectionsPerHost, tracer: tracer)
        background.closeUpstreamHTTP = ShutdownActionService { try? await http.shutdown() }
        let guards = UpstreamGuards(configuration: configuration.upstreamGuards, factory: metrics.factory)
        let platform = RoutingPlatformClient(
            remote: ResilientPlatformClient(base: HTTPPlatformClient(client: http), guards: guards))
        let provisioning = ResilientProvisioningClient(base: HTTPProvisioningClient(client: http), guards: guards)
        let answers = AnswerCache(
            cache: instrumented, near: NearAnswers(lifetime: configuration.nearCacheLifetime),
            staleGrace: configuration.staleGrace, factory: metrics.factory, logger: logger, clock: clock)
        let auth = AuthorizationServer(
            store: authStore, keys: keyRing, cache: instrumented, hasher: passwordHasher, loginPolicy: loginPolicy,
            revocations: RevokedTokens(
                cache: instrumented, feed: revocationFeed, mirror: revocationMirror, durable: durableRevocations,
                clock: clock
            ) { [announceWarnings = WarningThrottle()] error in
                announceWarnings.warning(
                    logger,
                    "revocation stored but not announced through Redis; other replicas read it from the database",
                    kind: "revocation-announce", metadata: ["error": "\(error)"])
            }, devices: stores.devices, sealer: sealer, clock: clock)
        // What watched release policies served to whom: the automatic halt counts only that.
        let servedVersions = ServedVersions(cache: instrumented, window: ReleaseHealth.defaultWindow, clock: clock)
        let issuerBase = IssuerBase(
            publicBaseURL: configuration.publicBaseURL, host: configuration.host, port: configuration.port)
        // The courier's messages in the tenant's wording (its `courier.*` localization overrides).
        let wording = LocalizationResolver(defaults: try LocalizationDefaults.builtIn(), store: stores.localization)
        let journeyCourier = JourneyCourier(
            codes: OneTimeCodes(cache: instrumented, sealer: sealer), outbox: stores.courier, cache: instrumented,
            sealer: sealer,
            clock: clock, tenantName: { directory.tenant($0)?.displayName },
            courierSettings: { directory.tenant($0)?.courier },
            wording: { [wording] in
                try await wording.overridesByLanguage(tenantID: $0, keyPrefixes: [CourierTemplates.keyPrefix])
            })
        let services = GatewayServices(
            directory: directory,
            cache: instrumented,
            metrics: metrics,
            readiness: ReadinessProbe(checks: checks),
            auth: auth,
            issuerBase: issuerBase,
            csrf: CSRFTokens(masterKey: masterKey, clock: clock),
            dpopNonces: DPoPNonces(masterKey: masterKey, clock: clock),
            miniApps: MiniAppService(
                platform: platform, provisioning: provisioning, answers: answers,
                demoCatalog: demoCatalog(configuration.demoCatalogPath, logger: logger)),
            releases: MiniAppReleases(
                table: releaseTable, clock: clock, metrics: releaseMetrics, served: servedVersions),
            upstreamBudget: configuration.upstreamBudget,
            homePartBudget: configuration.homePartBudget,
            rateLimits: configuration.rateLimits,
            userState: try UserStateServices.make(
                stores: stores, cache: instrumented, keys: auth.keys, revocations: auth.revocations,
                issuerBase: issuerBase, metrics: metrics,
                releaseHealth: ReleaseHealth(
                    table: releaseTable, store: stores.releases, cache: instrumented, served: servedVersions, clock: clock,
                    metrics: metrics.factory, logger: logger),
                devicesPerUser: configuration.pushMaxDevicesPerUser,
                sendQuotaPerMinute: configuration.pushSendQuotaPerMinute, messaging: configuration.messaging,
                clock: clock),
            federation: Federation(
                store: authStore, client: http, cache: instrumented, guards: guards, auth: auth,
                budget: configuration.upstreamBudget),
            purchases: PlatformPurchases(client: http, guards: guards),
            bodyLimits: configuration.bodyLimits,
            tracer: tracer,
            accessLog: configuration.accessLog,
            databaseBudget: configuration.databaseTimeout,
            jwksMaxAge: configuration.jwksMaxAge, backchannelPollInterval: configuration.cibaPollInterval,
            backchannelPingGuards: guards, audit: stores.audit,
            journeyCourier: journeyCourier,
            account: AccountService(
                auth: auth, courier: journeyCourier,
                accounts: UserAccountService(users: authStore, releases: stores.releases, hasher: passwordHasher),
                audit: stores.audit, passkeys: authStore),
            passkeys: PasskeyCeremonies(store: authStore, cache: instrumented, clock: clock)
        )
        let analyticsRetention = AnalyticsRetention(store: stores.analytics, clock: clock.now, logger: logger)
        let refreshRetention = RefreshRetention(store: stores.auth, clock: clock.now, logger: logger)
        background.loops.append(RetentionService { await analyticsRetention.run() })
        background.loops.append(RetentionService { await refreshRetention.run() })
        let pushRetention = BatchedRetention.pushOutbox(stores.outbox, clock: clock.now, logger: logger)
        background.loops.append(RetentionService { await pushRetention.run() })
        // Contacts stored before they were sealed (v23) are sealed once, in the background
        // (readers take both meanwhile); `gatewayctl migrate` does the same to the end.
        background.loops.append(OnceAfterStartService { await Self.sealLegacyContacts(stores.messaging, logger: logger) })
        // Every tenant's signing keys are read once after start, so a replica cut off from the
        // database later still verifies the tokens of tenants it has not served yet.
        background.loops.append(OnceAfterStartService {
            await keyRing.preload(tenantIDs: directory.tenants.map(\.id))
        })
        if configuration.auditRetentionDays > 0 {
            let auditRetention = AuditRetention(
                trail: stores.audit, signer: AuditCheckpointSigner(masterKey: masterKey),
                keepDays: configuration.auditRetentionDays, clock: clock.now, logger: logger)
            background.loops.append(RetentionService { await auditRetention.run() })
        }
        // This replica's tenant traffic joins every replica's in the shared cache (the console's
        // overview), every `trafficFlushInterval` and once more at shutdown.
        let flushInterval = configuration.trafficFlushInterval
        background.loops.append(
            ShutdownFlushService(
                interval: flushInterval, flush: { await metrics.traffic.flush(to: instrumented) }))
        let inboxRetention = BatchedRetention.inbox(stores.messaging, clock: clock.now, logger: logger)
        background.loops.append(RetentionService { await inboxRetention.run() })
        if configuration.pushConcurrency > 0 {
            let pushHTTP = ProviderHTTPClientFactory.make(connectionsPerHost: configuration.pushConcurrency)
            background.closePushHTTP = ShutdownActionService { try? await pushHTTP.shutdown() }
            let worker = PushDeliveryWorker(
                queue: stores.outbox, credentials: stores.pushCredentials,
                providers: [
                    .apns: APNsClient(client: pushHTTP, baseURL: configuration.pushAPNsURL, clock: clock.now),
                    .fcm: FCMClient(client: pushHTTP, baseURL: configuration.pushFCMURL, clock: clock.now),
                ], guards: guards, metrics: PushMetrics(factory: metrics.factory),
                configuration: .init(concurrency: configuration.pushConcurrency, lease: configuration.pushLease),
                clock: clock.now, logger: logger)
            background.loops.append(OutboxWorkerService(worker))
        }
        // The courier: codes by e-mail (and SMS) through each tenant's relay and provider.
        if configuration.courierConcurrency > 0 {
            let courierHTTP = ProviderHTTPClientFactory.make(
                connectionsPerHost: configuration.courierConcurrency, caFile: configuration.courierCAFile)
            background.closeCourierHTTP = ShutdownActionService { try? await courierHTTP.shutdown() }
            let courier = CourierDeliveryWorker(
                outbox: stores.courier, settings: { directory.tenant($0)?.courier },
                mail: CurlSMTPTransport(caFile: configuration.courierCAFile),
                sms: HTTPSMSTransport(client: courierHTTP, clock: clock.now), guards: guards,
                metrics: CourierMetrics(factory: metrics.factory),
                configuration: .init(
                    concurrency: configuration.courierConcurrency,
                    retry: RetryPolicy(maxAttempts: 8, baseDelay: configuration.courierRetryBase, maxDelay: .seconds(120))),
                clock: clock, logger: logger)
            background.loops.append(OutboxWorkerService(courier))
        }
        let courierRetention = BatchedRetention.courierOutbox(stores.courier, clock: clock.now, logger: logger)
        background.loops.append(RetentionService { await courierRetention.run() })
        return GatewayBootstrap(
            services: services, stores: stores, backgroundServices: background.inStartOrder, drain: drain)
    }

    /// The shared cache: Redis when a URL is configured, else in-process.
    static func openCache(_ configuration: GatewayConfiguration, metrics: GatewayMetrics, logger: Logger) throws -> SharedCache {
        guard let url = configuration.redisURL else {
            logger.notice("cache: in-process (no GATEWAY_REDIS_URL); answers are not shared across replicas")
            return SharedCache(cache: MemoryCache(), revocationFeed: nil, check: nil, close: nil)
        }
        let client = RedisClient(configuration: try RedisConfiguration(url: url), logger: logger)
        metrics.sampledGauge("gateway_redis_connections", "Open connections of the Redis pool.") {
            Double(client.openConnections)
        }
        logger.info("cache: Redis", metadata: ["redis": "\(RedisConfiguration.redacted(url: url))"])
        return SharedCache(
            cache: RedisCache(client: client), revocationFeed: RedisRevocationFeed(client: client),
            check: ReadinessProbe.Check(name: "redis") { try await client.ping() },
            close: ShutdownActionService { await client.shutdown() })
    }

    /// Seals contact rows from before `v23-sealed-contacts` in batches until none is left; a
    /// failure is logged and the next start goes on.
    static func sealLegacyContacts(_ store: any MessagingStore, logger: Logger) async {
        var sealed = 0
        do {
            while !Task.isCancelled {
                let batch = try await store.sealLegacyContacts(limit: 1_000)
                sealed += batch
                if batch < 1_000 { break }
            }
        } catch {
            logger.warning("contacts not sealed yet", metadata: ["error": "\(error)"])
        }
        if sealed > 0 { logger.notice("sealed contacts stored before they were sealed", metadata: ["rows": "\(sealed)"]) }
    }

    /// PostgreSQL's breaker (issue 47): opens when the probe goes unanswered, so requests that
    /// need the database fail at once; logged and counted when it opens and closes.
    static func databaseBreaker(
        _ configuration: GatewayConfiguration, metrics: GatewayMetrics, logger: Logger
    ) -> DatabaseBreaker {
        let interval = configuration.databaseProbeInterval ?? .milliseconds(250)
        let breaker = DatabaseBreaker(
            policy: .init(probeInterval: interval, probeTimeout: interval + .milliseconds(100), failuresToOpen: 2)
        ) { open in
            if open {
                metrics.increment(
                    "gateway_database_breaker_opens_total", "Times PostgreSQL's breaker opened (the database did not answer).",
                    labels: [])
                logger.error("database does not answer: requests that need it are refused until it does")
            } else {
                logger.notice("database answers again: breaker closed")
            }
        }
        metrics.sampledGauge(
            "gateway_database_breaker_open", "1 while PostgreSQL does not answer and requests that need it are refused."
        ) { breaker.isOpen ? 1 : 0 }
        return breaker
    }

    /// PostgreSQL when `databaseURL` is set, else the SQLite file; migrated either way.
    static func openStores(
        _ configuration: GatewayConfiguration, sealer: SecretSealer, breaker: DatabaseBreaker, logger: Logger
    ) async throws -> DurableStores {
        guard let url = configuration.databaseURL else {
            return try SQLiteTenantStore.open(path: configuration.databasePath, sealer: sealer).durableStores()
        }
        let stores = try await PostgresStores.open(
            url: url, sealer: sealer, logger: logger, statementDeadline: configuration.databaseTimeout,
            breaker: breaker)
        logger.info("database: PostgreSQL", metadata: ["database": "\(stores.location)"])
        return stores
    }

    /// The demo catalog folder as an absolute path, when it exists.
    static func demoCatalog(_ path: String?, logger: Logger) -> String? {
        guard let path else { return nil }
        let url = URL(
            fileURLWithPath: path,
            relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            logger.notice("no demo catalog at \(url.path); tenant 'demo' has no mini apps until it gets a platform")
            return nil
        }
        return url.standardizedFileURL.path
    }
}
