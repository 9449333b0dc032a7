import GatewayCore

extension SQLiteTenantStore {
    /// Every store on this database file (one connection pool, one master key).
    public func durableStores() -> DurableStores {
        DurableStores(
            backend: "sqlite", location: path, tenants: self, auth: SQLiteAuthStore(tenants: self),
            revocations: SQLiteRevocationStore(database: self),
            consents: SQLiteConsentStore(database: self), storage: SQLiteSecureStorageStore(database: self),
            tokenLedger: SQLiteMiniAppTokenLedger(database: self), analytics: SQLiteAnalyticsStore(database: self),
            localization: SQLiteLocalizationStore(database: self), domains: SQLiteTenantDomainStore(database: self),
            releases: SQLiteReleasePolicyStore(database: self), devices: SQLiteDeviceStore(database: self),
            outbox: SQLitePushOutboxStore(database: self), pushCredentials: SQLitePushCredentialStore(database: self),
            courier: SQLiteCourierOutbox(database: self),
            messaging: SQLiteMessagingStore(database: self), operators: SQLiteOperatorStore(database: self),
            audit: SQLiteAuditTrail(database: self), idempotency: SQLiteAdminIdempotencyStore(database: self),
            jobs: SQLiteAdminJobStore(database: self),
            schema: StoreSchema(
                known: Self.knownMigrations, applied: { try self.appliedMigrations() }, migrate: { try self.migrate() })
        )
    }
}
