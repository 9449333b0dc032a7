#if canImport(Glibc)
import Glibc
#endif
import GatewayCore
import Logging

/// The resolved settings of one gateway process.
public struct GatewayConfiguration: Sendable, Equatable {
    public enum Environment: String, Sendable, Equatable {
        case development
        case production
    }

    public enum LogFormat: String, Sendable, Equatable {
        case text
        case json
    }

    public var host: String
    public var port: Int
    /// Address of the admin listener.
    public var adminHost = "127.0.0.1"
    /// Port of the admin listener; nil: none (issue 48).
    public var adminPort: Int?
    /// Whether people need a TOTP second factor to sign in to the admin listener.
    public var adminRequireTOTP = false
    /// Where operators reach the admin listener (`admin.public.base.url`); nil: each request's Host, over http.
    public var adminPublicBaseURL: String?
    /// Days the audit trail keeps records; 0: forever.
    public var auditRetentionDays = 0
    /// Explicit public base URL; nil means derive from host and bound port.
    public var publicBaseURL: String?
    public var databasePath: String
    /// A PostgreSQL URL; when set, durable state lives there instead of the SQLite file.
    public var databaseURL: String?
    public var redisURL: String?
    public var masterKeyBase64: String?
    public var masterKeyFile: String?
    public var environment: Environment
    public var logLevel: Logger.Level
    public var logFormat: LogFormat
    public var tenantReloadInterval: Duration
    /// `Cache-Control: max-age` of JWKS answers (key rotation publishes a key longer than this
    /// before it signs).
    public var jwksMaxAge: Duration = .seconds(300)
    /// Seconds between a CIBA client's polls (`ciba.poll.interval.s`).
    public var cibaPollInterval = BackchannelRules.pollInterval
    /// Time budget of one client request for its upstream calls.
    public var upstreamBudget: Duration
    /// Connections per upstream host in the shared HTTP client (AsyncHTTPClient's default of 8 is too low for fan-out).
    public var upstreamConnectionsPerHost: Int
    /// Deadline of each part of `/home`.
    public var homePartBudget: Duration
    /// Push devices a user keeps; one more drops the oldest.
    public var pushMaxDevicesPerUser = DeviceService.defaultMaxPerUser
    /// APNs endpoint for both environments (nil: Apple's, by the device's environment).
    public var pushAPNsURL: String?
    /// FCM HTTP v1 endpoint.
    public var pushFCMURL = FCMClient.defaultBaseURL
    /// How long a claim on a batch of deliveries keeps other replicas off.
    public var pushLease: Duration = .seconds(60)
    /// Messages the courier sends at once per replica (0: this replica's courier is off).
    public var courierConcurrency = 16
    /// The authorities tenants' SMTP relays are verified against (nil: the system's).
    public var courierCAFile: String?
    /// The courier's first backoff after a transient failure.
    public var courierRetryBase: Duration = .seconds(2)
    /// How often this replica adds its tenant traffic counts to the shared cache (the
    /// console's overview figures lag by at most this).
    public var trafficFlushInterval: Duration = .seconds(10)
    /// Notifications a tenant may queue per minute (0: unlimited).
    public var pushSendQuotaPerMinute = SendQuota.defaultPerMinute
    /// Push provider calls in flight per replica (0: no delivery worker here).
    public var pushConcurrency = 64
    /// How long a request may wait for PostgreSQL, its statements together, before it fails as
    /// unavailable (and how long a session may sit idle in a transaction).
    public var databaseTimeout: Duration = .seconds(5)
    /// How often PostgreSQL's breaker probes it (nil: no breaker).
    public var databaseProbeInterval: Duration? = .milliseconds(250)
    /// Contacts, inbox retention and message limits.
    public var messaging = MessagingService.Settings()
    /// Folder served as tenant `demo`'s platform while it has none (nil = off).
    public var demoCatalogPath: String?
    /// Request limits per tenant / client per minute (0 = off).
    public var rateLimits: RateLimiter.Limits
    /// Circuit breaker, bulkhead and retries of every tenant × upstream.
    public var upstreamGuards: UpstreamGuards.Configuration
    /// How long a hot answer read from Redis is served from memory (``NearAnswers``; zero = off).
    public var nearCacheLifetime: Duration
    /// How long a request holding a stale copy waits for the upstream (``AnswerCache``; zero = until it answers).
    public var staleGrace: Duration = .seconds(1)
    /// Connection deadlines and the connection cap.
    public var connectionLimits: ConnectionLimits
    /// The largest request body of each route.
    public var bodyLimits: BodyLimits
    /// On SIGTERM: how long readiness fails while requests are still served.
    public var shutdownDrain: Duration = .zero
    /// The longest graceful shutdown.
    public var shutdownTimeout: Duration = .seconds(30)
    /// Whether spans are exported (OpenTelemetry over OTLP/HTTP); off by default.
    public var tracing: Tracing = .off
    /// One log line per request (method, route, status, time, client address).
    public var accessLog = false
    /// Cache hits of the stored-answer reads answered on the event loop (``StoredAnswerFastPath``).
    public var fastPath = true
    /// Trusted proxies and the PROXY protocol (who may say who the client is).
    public var proxies = ProxySettings()
    /// An on/off setting (`--proxy-protocol`, `--access-log`).
    public enum Switch: String, Sendable, CaseIterable {
        case off
        case on
    }

    /// Where spans go.
    public enum Tracing: String, Sendable, CaseIterable {
        /// No tracer: no spans, no trace context read or sent.
        case off
        /// OpenTelemetry, exported over OTLP/HTTP (see `OTelTracing`).
        case otlp
    }

    /// This replica's name in logs and metrics (1-63 of `A-Z a-z 0-9 . _ -`).
    public var replicaID: String = GatewayConfiguration.defaultReplicaID()

    /// The host name, cut to a valid replica id (`gateway` when there is none).
    static func defaultReplicaID() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "gateway" }
        let name = String(
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).prefix(63))
        return isValidReplicaID(name) ? name : "gateway"
    }

    /// 1-63 characters of `A-Z a-z 0-9 . _ -`: safe as a Prometheus label value and a log field.
    static func isValidReplicaID(_ id: String) -> Bool {
        (1...63).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        publicBaseURL: String? = nil,
        databasePath: String = "./.gateway/gateway.sqlite",
        databaseURL: String? = nil,
        redisURL: String? = nil,
        masterKeyBase64: String? = nil,
        masterKeyFile: String? = nil,
        environment: Environment = .development,
        logLevel: Logger.Level = .info,
        logFormat: LogFormat = .text,
        tenantReloadInterval: Duration = .milliseconds(500),
        upstreamBudget: Duration = .seconds(5),
        upstreamConnectionsPerHost: Int = 64,
        homePartBudget: Duration = .milliseconds(800),
        demoCatalogPath: String? = "Deploy/demo",
        rateLimits: RateLimiter.Limits = .init(),
        upstreamGuards: UpstreamGuards.Configuration = .init(),
        nearCacheLifetime: Duration = .seconds(1),
        connectionLimits: ConnectionLimits = .init(),
        bodyLimits: BodyLimits = .init()
    ) {
        self.connectionLimits = connectionLimits
        self.bodyLimits = bodyLimits
        self.upstreamGuards = upstreamGuards
        self.nearCacheLifetime = nearCacheLifetime
        self.rateLimits = rateLimits
        self.demoCatalogPath = demoCatalogPath
        self.homePartBudget = homePartBudget
        self.upstreamBudget = upstreamBudget
        self.upstreamConnectionsPerHost = upstreamConnectionsPerHost
        self.host = host
        self.port = port
        self.publicBaseURL = publicBaseURL
        self.databasePath = databasePath
        self.databaseURL = databaseURL
        self.redisURL = redisURL
        self.masterKeyBase64 = masterKeyBase64
        self.masterKeyFile = masterKeyFile
        self.environment = environment
        self.logLevel = logLevel
        self.logFormat = logFormat
        self.tenantReloadInterval = tenantReloadInterval
    }

    /// The issuer base: the configured public URL, else `http://host:port`.
    public func publicBaseURL(boundPort: Int) -> String {
        if let publicBaseURL { return publicBaseURL.hasSuffix("/") ? String(publicBaseURL.dropLast()) : publicBaseURL }
        return "http://\(host):\(boundPort)"
    }
}

/// A setting whose value cannot be used; `gateway serve` prints it and exits 2.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let setting: GatewaySetting
    public let reason: String

    public var description: String {
        "\(setting.flag) / \(setting.environmentVariable): \(reason)"
    }
}
