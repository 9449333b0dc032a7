/// The authorization server's stores, which one backend implements together.
public typealias AuthStore = SigningKeyStore & ClientStore & UserStore & RefreshTokenStore & FederationStore
    & PasskeyStore & UserEraser & UserSuspender

/// Every durable store of one database, each behind its protocol: what a gateway process
/// or `gatewayctl` works with, whichever backend holds the data (SQLite file by default,
/// PostgreSQL when a database URL is configured).
public struct DurableStores: Sendable {
    /// Which engine, for logs and the readiness check (`sqlite`, `postgres`).
    public let backend: String
    /// Where the data lives, without credentials (a file path or a redacted URL).
    public let location: String
    /// Tenants, their audit log and the change token.
    public let tenants: any TenantStore
    /// Signing keys, OAuth clients, local users and refresh families.
    public let auth: any AuthStore
    /// Revoked token ids until they expire.
    public let revocations: any RevocationStore
    /// Users' consent answers per mini app.
    public let consents: any ConsentStore
    /// Users' secure storage per mini app (sealed values, capped).
    public let storage: any SecureStorageStore
    /// Issued mini-app access-token ids.
    public let tokenLedger: any MiniAppTokenLedger
    /// Analytics events with retention.
    public let analytics: any AnalyticsStore
    /// Localization overrides and default locales.
    public let localization: any LocalizationStore
    /// Universal-link domains.
    public let domains: any TenantDomainStore
    /// Staged releases of mini-app versions and their history.
    public let releases: any ReleasePolicyStore
    /// Users' push devices (sealed tokens).
    public let devices: any DeviceStore
    /// The push outbox: messages and their deliveries.
    public let outbox: any PushOutbox
    /// Tenants' push provider credentials (sealed).
    public let pushCredentials: any PushCredentialStore
    /// The courier outbox: e-mail and SMS to people (sealed), beside push's.
    public let courier: any CourierOutbox
    /// Users' contacts, blocks and inboxes.
    public let messaging: any MessagingStore
    /// Operators and their role bindings (issue 48).
    public let operators: any OperatorStore
    /// The hash-chained audit trail of operator actions (issue 48).
    public let audit: any AuditTrail
    /// `Idempotency-Key`s of acting admin calls (issue 48).
    public let idempotency: any AdminIdempotencyStore
    /// Long admin actions and their progress (issue 48).
    public let jobs: any AdminJobStore
    /// The backend's migrations.
    public let schema: StoreSchema
    /// Announces tenant changes as they commit (PostgreSQL); nil: the directory polls only.
    public let tenantChanges: (any TenantChangeSignal)?
    /// The connection pool right now, for metrics (PostgreSQL); nil: no pool (SQLite).
    public let poolUsage: (@Sendable () -> PoolUsageSample)?
    /// Probes the database for its breaker until cancelled (PostgreSQL: requests fail fast while
    /// it does not answer); nil: no breaker (SQLite, a local file: its failures are immediate,
    /// never a wait).
    public let breakerProbe: (@Sendable () async -> Void)?
    private let closeAction: @Sendable () async -> Void

    public init(
        backend: String, location: String, tenants: any TenantStore, auth: any AuthStore,
        revocations: any RevocationStore,
        consents: any ConsentStore, storage: any SecureStorageStore, tokenLedger: any MiniAppTokenLedger,
        analytics: any AnalyticsStore,
        localization: any LocalizationStore, domains: any TenantDomainStore, releases: any ReleasePolicyStore,
        devices: any DeviceStore, outbox: any PushOutbox, pushCredentials: any PushCredentialStore,
        courier: any CourierOutbox,
        messaging: any MessagingStore, operators: any OperatorStore, audit: any AuditTrail,
        idempotency: any AdminIdempotencyStore, jobs: any AdminJobStore, schema: StoreSchema,
        tenantChanges: (any TenantChangeSignal)? = nil, poolUsage: (@Sendable () -> PoolUsageSample)? = nil,
        breakerProbe: (@Sendable () async -> Void)? = nil, close: @escaping @Sendable () async -> Void = {}
    ) {
        self.breakerProbe = breakerProbe
        self.poolUsage = poolUsage
        self.schema = schema
        self.tenantChanges = tenantChanges
        self.backend = backend
        self.location = location
        self.tenants = tenants
        self.courier = courier
        self.auth = auth
        self.revocations = revocations
        self.consents = consents
        self.storage = storage
        self.tokenLedger = tokenLedger
        self.analytics = analytics
        self.localization = localization
        self.domains = domains
        self.releases = releases
        self.devices = devices
        self.outbox = outbox
        self.pushCredentials = pushCredentials
        self.messaging = messaging
        self.operators = operators
        self.audit = audit
        self.idempotency = idempotency
        self.jobs = jobs
        self.closeAction = close
    }

    /// Releases the backend's connections (a no-op for SQLite). Call once, when done.
    public func close() async {
        await closeAction()
    }
}

/// A backend's versioned schema: which migrations exist, which are applied, and how to
/// apply the rest (`gatewayctl migrate`).
public struct StoreSchema: Sendable {
    /// Every migration this build knows, in order.
    public let known: [String]
    private let appliedAction: @Sendable () async throws -> [String]
    private let migrateAction: @Sendable () async throws -> Void

    public init(
        known: [String], applied: @escaping @Sendable () async throws -> [String],
        migrate: @escaping @Sendable () async throws -> Void
    ) {
        self.known = known
        self.appliedAction = applied
        self.migrateAction = migrate
    }

    /// The migrations applied to the database, in order.
    public func applied() async throws -> [String] {
        try await appliedAction()
    }

    /// Applies the pending migrations (a no-op when the schema is current).
    public func migrate() async throws {
        try await migrateAction()
    }
}

/// How many connections of a store's pool are held, of how many it may open.
public struct PoolUsageSample: Sendable, Equatable {
    public var inUse: Int
    public var size: Int

    public init(inUse: Int, size: Int) {
        self.inUse = inUse
        self.size = size
    }
}
