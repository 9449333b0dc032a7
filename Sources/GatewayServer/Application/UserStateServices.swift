import GatewayCore

/// The per-user mini-app state services (issue 5): consents, mini-app access tokens,
/// secure storage, analytics, localization and deep links.
public struct UserStateServices: Sendable {
    /// Consents, validated against manifests.
    public let consents: ConsentService
    /// Access-token rules, answer cache and minting.
    public let accessTokens: MiniAppAccessTokenService
    /// Secure storage with the tenant's cap.
    public let storage: SecureStorageService
    /// Analytics batches.
    public let analytics: AnalyticsService
    /// Localized SDK texts (Redis-cached bundles) and locale negotiation.
    public let localizations: LocalizationBundleCache
    /// Locale negotiation (`Accept-Language`).
    public let localizationResolver: LocalizationResolver
    /// Deep links and AASA documents.
    public let links: DeepLinkService
    /// Users' push devices.
    public let devices: DeviceService
    /// Senders' notifications (the push outbox).
    public let notifications: NotificationService
    /// Contacts, messages between users and inboxes.
    public let messaging: MessagingService
    /// Backchannel (CIBA) requests reaching the user's devices on the host app's channel.
    public let signInPushes: SignInRequestPush?

    public init(
        consents: ConsentService, accessTokens: MiniAppAccessTokenService, storage: SecureStorageService,
        analytics: AnalyticsService,
        localizations: LocalizationBundleCache, localizationResolver: LocalizationResolver, links: DeepLinkService,
        devices: DeviceService, notifications: NotificationService, messaging: MessagingService,
        signInPushes: SignInRequestPush? = nil
    ) {
        self.messaging = messaging
        self.signInPushes = signInPushes
        self.devices = devices
        self.notifications = notifications
        self.localizations = localizations
        self.localizationResolver = localizationResolver
        self.links = links
        self.consents = consents
        self.accessTokens = accessTokens
        self.storage = storage
        self.analytics = analytics
    }

    /// Builds the services on the durable stores, the shared cache and the tenants'
    /// signing keys.
    public static func make(
        stores: DurableStores, cache: any Cache, keys: KeyRing, revocations: RevokedTokens, issuerBase: IssuerBase,
        metrics: GatewayMetrics, releaseHealth: ReleaseHealth? = nil,
        devicesPerUser: Int = DeviceService.defaultMaxPerUser, sendQuotaPerMinute: Int = SendQuota.defaultPerMinute,
        messaging: MessagingService.Settings = .init(), clock: WallClock
    ) throws -> UserStateServices {
        let consentStore = stores.consents
        let localizationStore = stores.localization
        let resolver = LocalizationResolver(defaults: try LocalizationDefaults.builtIn(), store: localizationStore)
        let accessTokens = MiniAppAccessTokenService(
            consents: consentStore, answers: AccessTokenAnswerCache(cache: cache),
            minter: SigningKeyTokenMinter(keys: keys, issuer: { issuerBase.issuer(tenantID: $0) }),
            ledger: stores.tokenLedger, revocations: revocations, clock: clock
        )
        let consents = ConsentService(store: consentStore, tokens: accessTokens)
        return UserStateServices(
            consents: consents,
            accessTokens: accessTokens,
            storage: SecureStorageService(store: stores.storage),
            analytics: AnalyticsService(
                store: stores.analytics, metrics: metrics.factory, opens: consents, releaseHealth: releaseHealth,
                now: clock.now),
            localizations: LocalizationBundleCache(cache: cache, resolver: resolver, store: localizationStore),
            localizationResolver: resolver,
            links: DeepLinkService(domains: stores.domains),
            devices: DeviceService(store: stores.devices, maxPerUser: devicesPerUser, clock: clock),
            notifications: NotificationService(
                outbox: stores.outbox, domains: stores.domains,
                quota: SendQuota(cache: cache, perMinute: sendQuotaPerMinute, clock: clock), clock: clock),
            messaging: MessagingService(
                store: stores.messaging, consents: consentStore, cache: cache, settings: messaging, clock: clock),
            signInPushes: SignInRequestPush(outbox: stores.outbox, clock: clock)
        )
    }
}
