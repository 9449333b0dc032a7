import GatewayCore
import Logging

/// Opens every store on one PostgreSQL database.
public enum PostgresStores {
    /// Names of every migration this build knows, in order (the same names as SQLite's).
    public static var knownMigrations: [String] { PostgresMigrations.names }

    /// Connects, applies pending migrations (unless `migrate` is false) and returns the
    /// stores; ``DurableStores/close()`` closes the pool.
    /// - Parameter breaker: refuses statements at once while the database does not answer (it
    ///   opens only while ``DurableStores/breakerProbe`` runs).
    public static func open(
        url: String, sealer: SecretSealer, logger: Logger, migrate: Bool = true, searchPath: String? = nil,
        statementDeadline: Duration? = nil, breaker: DatabaseBreaker = DatabaseBreaker()
    ) async throws -> DurableStores {
        let database = try PostgresDatabase(
            url: url, sealer: sealer, logger: logger, searchPath: searchPath, statementDeadline: statementDeadline,
            breaker: breaker)
        do {
            try await database.checkReachable(within: database.connectTimeout + .seconds(1))
            if migrate { try await PostgresMigrations.migrate(database) }
        } catch {
            await database.shutdown()
            throw error
        }
        return stores(on: database, logger: logger)
    }

    /// The stores on an open database.
    public static func stores(
        on database: PostgresDatabase, logger: Logger = Logger(label: "gateway.postgres")
    ) -> DurableStores {
        DurableStores(
            backend: "postgres", location: database.location, tenants: PostgresTenantStore(database: database),
            auth: PostgresAuthStore(database: database),
            revocations: PostgresRevocationStore(database: database),
            consents: PostgresConsentStore(database: database),
            storage: PostgresSecureStorageStore(database: database),
            tokenLedger: PostgresMiniAppTokenLedger(database: database),
            analytics: PostgresAnalyticsStore(database: database),
            localization: PostgresLocalizationStore(database: database),
            domains: PostgresTenantDomainStore(database: database),
            releases: PostgresReleasePolicyStore(database: database),
            devices: PostgresDeviceStore(database: database), outbox: PostgresPushOutboxStore(database: database),
            pushCredentials: PostgresPushCredentialStore(database: database),
            courier: PostgresCourierOutbox(database: database),
            messaging: PostgresMessagingStore(database: database),
            operators: PostgresOperatorStore(database: database), audit: PostgresAuditTrail(database: database),
            idempotency: PostgresAdminIdempotencyStore(database: database),
            jobs: PostgresAdminJobStore(database: database),
            schema: StoreSchema(
                known: PostgresMigrations.names, applied: { try await PostgresMigrations.applied(database) },
                migrate: { try await PostgresMigrations.migrate(database) }),
            tenantChanges: PostgresTenantChangeSignal(database: database, logger: logger),
            poolUsage: { PoolUsageSample(inUse: database.connectionsInUse, size: database.poolSize) },
            breakerProbe: { await database.runBreakerProbe() },
            close: { await database.shutdown() }
        )
    }

    /// Applies pending migrations (up to and including `last`); returns what it applied.
    @discardableResult
    public static func migrate(_ database: PostgresDatabase, upTo last: String? = nil) async throws -> [String] {
        try await PostgresMigrations.migrate(database, upTo: last)
    }

    /// The migrations applied to the database, in order.
    public static func appliedMigrations(_ database: PostgresDatabase) async throws -> [String] {
        try await PostgresMigrations.applied(database)
    }
}
