import AdminAPI
import GatewayCore
import Hummingbird
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime

/// The admin listener (issue 48): its own Hummingbird application on `--admin-host` /
/// `--admin-port`, serving only `OpenAPI/admin.yaml`, never the public routes (and the public
/// port never serves these). Runs as a service beside the public application.
public enum AdminApplication {
    /// What the admin listener needs from the gateway.
    public struct Services: Sendable {
        public var stores: DurableStores
        public var metrics: GatewayMetrics
        public var clock: WallClock
        /// Sign-in throttling and one-time-code replay memory (Redis when the gateway has one,
        /// so every replica counts the same attempts).
        public var cache: any Cache
        /// Whether people need a TOTP second factor to sign in.
        public var requireSecondFactor: Bool
        /// The cost of scrypt password checks (tests lower it).
        public var hasher: PasswordHasher
        /// Where operators reach the listener (`admin.public.base.url`); nil: each request's Host, over http.
        public var publicBaseURL: String?

        public init(
            stores: DurableStores, metrics: GatewayMetrics, clock: WallClock, cache: any Cache = MemoryCache(),
            requireSecondFactor: Bool = false, hasher: PasswordHasher = PasswordHasher(), publicBaseURL: String? = nil
        ) {
            self.publicBaseURL = publicBaseURL
            self.stores = stores
            self.metrics = metrics
            self.clock = clock
            self.cache = cache
            self.requireSecondFactor = requireSecondFactor
            self.hasher = hasher
        }
    }

    /// The router: edge middleware (request id, problems, operator authentication), then the
    /// generated handlers.
    static func router(_ services: Services) throws -> Router<AdminRequestContext> {
        let router = Router(context: AdminRequestContext.self)
        let authenticator = OperatorAuthenticator(
            operators: services.stores.operators, cache: services.cache, clock: services.clock)
        router.add(
            middleware: AdminEdgeMiddleware(
                ids: RequestIDSequence(), authenticator: authenticator, metrics: AdminMetrics(metrics: services.metrics),
                publicBaseURL: services.publicBaseURL))
        router.add(middleware: HeaderDecodingMiddleware())
        let signIn = OperatorSignIn(
            operators: services.stores.operators, cache: services.cache, hasher: services.hasher, clock: services.clock,
            requireSecondFactor: services.requireSecondFactor, sessionLifetime: authenticator.sessionLifetime)
        let handler = AdminAPIHandler(
            service: AdminService(stores: services.stores, clock: services.clock, hasher: services.hasher), authenticator: authenticator,
            signIn: signIn, console: ConsoleSessions(cache: services.cache),
            releaseSeries: ReleaseHealthSeries(cache: services.cache), sharedCache: services.cache,
            clock: services.clock)
        try handler.registerHandlers(on: router, configuration: AdminWire.configuration)
        return router
    }

    /// - Parameter onServerRunning: called with the bound port (port 0 picks a free one).
    public static func make(
        host: String, port: Int, services: Services, logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        Application(
            router: try router(services),
            configuration: .init(address: .hostname(host, port: port), serverName: GatewayApplication.serverName),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
