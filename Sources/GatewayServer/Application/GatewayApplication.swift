import AsyncHTTPClient
import GatewayAPI
import GatewayCore
import Hummingbird
import OpenAPIRuntime
import Tracing
import HummingbirdCore
import Logging
import OpenAPIHummingbird
import ServiceLifecycle

/// What the HTTP layer needs, built once at start (see ``GatewayBootstrap``) or by tests.
/// A class: the generated server copies its handler (which holds this) for each request, and
/// a copy of a struct of twenty-odd services was a retain and a release per reference inside
/// it (1.5 % of a refresh's samples, issue 32); a class reference is one.
public final class GatewayServices: Sendable {
    public let directory: TenantDirectory
    public let cache: any Cache
    public let metrics: GatewayMetrics
    public let readiness: ReadinessProbe
    /// The authorization server of every tenant.
    public let auth: AuthorizationServer
    /// Where issuers come from.
    public let issuerBase: IssuerBase
    /// CSRF tokens of the sign-in form.
    public let csrf: CSRFTokens
    /// Server nonces for DPoP proofs (derived from the master key, like `csrf`).
    public let dpopNonces: DPoPNonces
    /// The mini-app operations (platform and provisioning fan-out through the answer cache).
    public let miniApps: MiniAppService
    /// Which version each user gets (staged releases, decided in memory).
    public let releases: MiniAppReleases
    /// Time budget of one request for its upstream calls (deadline propagated to each call).
    public let upstreamBudget: Duration
    /// Deadline of each `/home` part.
    public let homePartBudget: Duration
    /// Request limits per tenant and per client (0 = off).
    public let rateLimits: RateLimiter.Limits
    /// Consents, mini-app access tokens, storage, analytics, localization and deep links.
    public let userState: UserStateServices
    /// The largest request body of each route.
    public let bodyLimits: BodyLimits
    /// Spans per request when tracing is on.
    public let tracer: (any Tracer)?
    /// Upstream identity providers, trusted issuers and identity links.
    public let federation: Federation
    /// The platform's in-app purchase calls, passed through for the RAS-compatible API.
    public let purchases: PlatformPurchases
    /// One log line per request (`--access-log on`).
    public let accessLog: Bool
    /// How long one request may wait for the database, all statements together.
    public let databaseBudget: Duration
    /// `Cache-Control: max-age` of JWKS answers.
    public let jwksMaxAge: Duration
    /// Seconds between a CIBA client's polls (`ciba.poll.interval.s`).
    public let backchannelPollInterval: Int
    /// CIBA's ping mode: the notification to the client once the user answers, held by the
    /// upstream guards (nil: none sent).
    let backchannelPings: BackchannelPings?
    /// The tenants' audit trail: backchannel requests and answers are recorded in it (nil: not recorded).
    let audit: (any AuditTrail)?
    /// The sign-in form's decisions (CSRF, password, second factor, identity providers).
    public let signIn: BrowserSignIn
    /// The journeys whose screens native apps draw (issue 63).
    public let journeys: JourneyEngine
    /// My account for the host app (issue 63 §7); nil: its operations answer 404.
    public let account: AccountService?
    /// Passkey ceremonies (issue 64), for a sign-in request's step-up; nil: no passkeys.
    public let passkeys: PasskeyCeremonies?
    /// The wall clock of every time-based decision (tokens, throttles, rate windows).
    public var clock: WallClock { auth.clock }

    public init(
        directory: TenantDirectory, cache: any Cache, metrics: GatewayMetrics, readiness: ReadinessProbe,
        auth: AuthorizationServer, issuerBase: IssuerBase, csrf: CSRFTokens, dpopNonces: DPoPNonces,
        miniApps: MiniAppService, releases: MiniAppReleases, upstreamBudget: Duration = .seconds(5), homePartBudget: Duration = .milliseconds(800),
        rateLimits: RateLimiter.Limits = .init(),
        userState: UserStateServices, federation: Federation, purchases: PlatformPurchases,
        bodyLimits: BodyLimits = .init(), tracer: (any Tracer)? = nil,
        accessLog: Bool = false, databaseBudget: Duration = .seconds(5), jwksMaxAge: Duration = .seconds(300),
        backchannelPollInterval: Int = BackchannelRules.pollInterval, backchannelPingGuards: UpstreamGuards? = nil,
        audit: (any AuditTrail)? = nil, journeyCourier: JourneyCourier? = nil, account: AccountService? = nil,
        passkeys: PasskeyCeremonies? = nil
    ) {
        self.account = account
        self.audit = audit
        self.backchannelPings = backchannelPingGuards.map { BackchannelPings(guards: $0, metrics: metrics) }
        self.jwksMaxAge = jwksMaxAge
        self.backchannelPollInterval = backchannelPollInterval
        self.databaseBudget = databaseBudget
        self.accessLog = accessLog
        self.federation = federation
        self.purchases = purchases
        self.dpopNonces = dpopNonces
        self.tracer = tracer
        self.userState = userState
        self.bodyLimits = bodyLimits
        self.rateLimits = rateLimits
        self.homePartBudget = homePartBudget
        self.directory = directory
        self.cache = cache
        self.metrics = metrics
        self.readiness = readiness
        self.auth = auth
        self.issuerBase = issuerBase
        self.csrf = csrf
        self.signIn = BrowserSignIn(auth: auth, federation: federation.signIn, csrf: csrf)
        self.passkeys = passkeys
        self.journeys = JourneyEngine(
            auth: auth, cache: cache, clock: auth.clock, courier: journeyCourier, passkeys: passkeys, audit: audit)
        self.miniApps = miniApps
        self.releases = releases
        self.upstreamBudget = upstreamBudget
    }
}

/// Builds the Hummingbird application: the edge middlewares (see ``GatewayResponder``)
/// ahead of the router of the OpenAPI-generated routes.
public enum GatewayApplication {
    public typealias Context = GatewayRequestContext

    /// How the generated handlers write JSON: compact, keys sorted, slashes unescaped — the same
    /// form as the stored answers, problem documents and OAuth errors (one JSON style everywhere).
    /// The `Server` header of every answer.
    static let serverName = "superapp-gateway"

    static let wireConfiguration = Configuration(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    /// - Parameters:
    ///   - storedAnswers: serve the hot reads' cached bytes ahead of the router
    ///     (``StoredAnswerMiddleware``); off only to compare with the generated handlers.
    ///   - clientAddresses: how each request's client address is decided and capped.
    public static func makeResponder(
        services: GatewayServices, storedAnswers: Bool = true,
        clientAddresses: ClientAddressResolver = .init(trusted: .init()), limits: ConnectionLimits = .init()
    ) throws -> some HTTPResponder<Context> {
        try makeEdge(services: services, storedAnswers: storedAnswers, clientAddresses: clientAddresses, limits: limits)
    }

    static func makeEdge(
        services: GatewayServices, storedAnswers: Bool, clientAddresses: ClientAddressResolver, limits: ConnectionLimits
    ) throws -> GatewayResponder {
        let router = Router(context: Context.self)
        let handler = GatewayAPIHandler(services: services)
        let problems = ProblemMiddleware(warnings: WarningThrottle())
        router.add(middleware: problems)
        router.add(middleware: HeaderDecodingMiddleware())
        router.add(middleware: DatabaseBudgetMiddleware(budget: services.databaseBudget))
        router.add(middleware: TokenFormMiddleware())
        try handler.registerHandlers(
            on: router, configuration: Self.wireConfiguration, middlewares: [OptionalBodyMiddleware()])
        return GatewayResponder(
            operations: OperationTable(),
            requestIDs: RequestIDMiddleware(ids: RequestIDSequence()),
            tracing: services.tracer.map { RequestTracingMiddleware(tracer: $0) },
            metrics: HTTPMetricsMiddleware(
                metrics: services.metrics, directory: services.directory, accessLog: services.accessLog),
            problems: problems,
            clientAddresses: ClientAddressMiddleware(resolver: clientAddresses),
            requestsPerAddress: RequestsPerAddressMiddleware(limits: limits),
            tenants: TenantResolutionMiddleware(directory: services.directory),
            bodyLimits: BodyLimitMiddleware(limits: services.bodyLimits),
            bearer: BearerAuthMiddleware(
                auth: services.auth, tokens: services.federation.apiTokens, issuerBase: services.issuerBase,
                nonces: services.dpopNonces),
            rateLimits: RateLimitMiddleware(
                limiter: RateLimiter(cache: services.cache, limits: services.rateLimits, clock: services.clock)),
            storedAnswers: storedAnswers ? StoredAnswerMiddleware(handler: handler) : nil,
            router: router.buildResponder()
        )
    }

    /// - Parameters:
    ///   - backgroundServices: run beside the server and shut down with it (tenant reload, Redis).
    ///   - onServerRunning: called with the bound port once listening (port 0 picks a free one).
    ///   - limits: connection deadlines, caps and overload shedding.
    ///   - proxies: who may say who the client is.
    ///   - fastPath: answer cache hits of the stored-answer reads on the event loop
    ///     (``StoredAnswerFastPath``); off only to compare with the full path.
    public static func make(
        host: String,
        port: Int,
        services: GatewayServices,
        backgroundServices: [any Service] = [],
        limits: ConnectionLimits = .init(),
        proxies: ProxySettings = .init(),
        fastPath: Bool = true,
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let guarding = ConnectionGuard(limits: limits, proxies: proxies, metrics: services.metrics)
        let edge = try makeEdge(
            services: services, storedAnswers: true, clientAddresses: guarding.resolver, limits: limits)
        return Application(
            responder: edge,
            server: .guardedHTTP1(
                guarding, fastPath: fastPath ? StoredAnswerFastPath(edge: edge, serverName: serverName) : nil),
            configuration: .init(
                address: .hostname(host, port: port), serverName: serverName, backlog: 1024,
                // A backstop: shedding starts at 80 % of the cap, so accepting pauses only when
                // nearly every connection has a request in flight.
                availableConnectionsDelegate: MaximumAvailableConnections(
                    guarding.admission.policy.maxConnections, logger: logger)
            ),
            services: backgroundServices,
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                services.issuerBase.bound(port: bound)
                await onServerRunning(bound)
            },
            logger: logger
        )
    }
}
