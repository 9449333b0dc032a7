/// Every setting `gateway serve` reads, with its configuration key, environment variable,
/// command-line flag, default and meaning. One table serves the loader, `--help`,
/// docs/configuration.md and the Deploy/ check.
public struct GatewaySetting: Sendable, Hashable {
    /// Dotted configuration key, e.g. `http.port` (file key path; flag `--http-port`).
    public let key: String
    /// Environment variable, e.g. `GATEWAY_HTTP_PORT`.
    public let environmentVariable: String
    /// Command-line flag, e.g. `--http-port`.
    public let flag: String
    /// Default shown in help (nil: unset).
    public let defaultValue: String?
    public let summary: String
    public let isSecret: Bool

    init(_ key: String, env: String, default defaultValue: String?, secret: Bool = false, _ summary: String) {
        self.key = key
        self.environmentVariable = "GATEWAY_" + env
        self.flag = "--" + key.replacingOccurrences(of: ".", with: "-")
        self.defaultValue = defaultValue
        self.summary = summary
        self.isSecret = secret
    }
}

extension GatewaySetting {
    public static let httpHost = GatewaySetting(
        "http.host", env: "HTTP_HOST", default: "127.0.0.1", "Address to listen on.")
    public static let httpPort = GatewaySetting(
        "http.port", env: "HTTP_PORT", default: "8080", "Port to listen on (0 = any free port).")
    public static let adminHost = GatewaySetting(
        "admin.host", env: "ADMIN_HOST", default: "127.0.0.1",
        "Address of the admin listener (the operators' API, docs/operators.md); never the public port.")
    public static let adminPort = GatewaySetting(
        "admin.port", env: "ADMIN_PORT", default: nil,
        "Port of the admin listener (0 = any free port); unset = no admin listener.")
    public static let adminRequireTOTP = GatewaySetting(
        "admin.require.totp", env: "ADMIN_REQUIRE_TOTP", default: "off",
        "on: every person signing in to the admin listener needs a TOTP second factor (gatewayctl operator totp).")
    public static let adminPublicBaseURL = GatewaySetting(
        "admin.public.base.url", env: "ADMIN_PUBLIC_BASE_URL", default: nil,
        "Base URL operators reach the admin listener at (https behind a TLS proxy); the operator realm's issuer is {this}/admin. Default http://{each request's Host}.")
    public static let auditRetentionDays = GatewaySetting(
        "audit.retention.days", env: "AUDIT_RETENTION_DAYS", default: "0",
        "Days operators' audit records are kept (0 = forever, else 30-36500); older ones are pruned hourly behind a signed checkpoint, so the chains still verify.")
    public static let publicBaseURL = GatewaySetting(
        "public.base.url", env: "PUBLIC_BASE_URL", default: nil,
        "Base URL clients use; issuers are {this}/t/{tenant}. Default http://{host}:{port}.")
    public static let databasePath = GatewaySetting(
        "database.path", env: "DATABASE_PATH", default: "./.gateway/gateway.sqlite",
        "SQLite file with tenants and durable state.")
    public static let databaseURL = GatewaySetting(
        "database.url", env: "DATABASE_URL", default: nil, secret: true,
        "postgres://user:password@host:5432/db?sslmode=…: keep durable state in PostgreSQL (wins over the SQLite path); unset = SQLite."
    )
    public static let databaseTimeout = GatewaySetting(
        "database.timeout.ms", env: "DATABASE_TIMEOUT_MS", default: "5000",
        "How long a request may wait for PostgreSQL, all its statements together (1000-600000), before it answers 503 database_unavailable (a server that answers slowly; one that does not answer is refused at once by the breaker); also how long a session may sit idle in a transaction before the server ends it."
    )
    public static let databaseProbe = GatewaySetting(
        "database.probe.ms", env: "DATABASE_PROBE_MS", default: "250",
        "PostgreSQL's breaker: how often it is asked `SELECT 1` on a connection of its own (100-10000; 0 = no breaker). Two probes in a row unanswered within this plus 100 ms open it: requests that need the database answer 503 database_unavailable at once (and those waiting, then); the first answer closes it."
    )
    public static let redisURL = GatewaySetting(
        "redis.url", env: "REDIS_URL", default: nil, secret: true,
        "redis://[[user]:password@]host:port/db, rediss:// (TLS) or redis-sentinel://host:port,host:port/master/db; unset = in-process cache."
    )
    public static let masterKey = GatewaySetting(
        "master.key", env: "MASTER_KEY", default: nil, secret: true, "Base64 of 32 bytes that seal secrets at rest.")
    public static let masterKeyFile = GatewaySetting(
        "master.key.file", env: "MASTER_KEY_FILE", default: nil, "File holding the base64 master key.")
    public static let environment = GatewaySetting(
        "environment", env: "ENVIRONMENT", default: "development",
        "development (generates a dev master key, seeds a demo tenant) or production.")
    public static let logLevel = GatewaySetting(
        "log.level", env: "LOG_LEVEL", default: "info", "trace, debug, info, notice, warning, error, critical.")
    public static let accessLog = GatewaySetting(
        "access.log", env: "ACCESS_LOG", default: "off",
        "on: one notice line per request (method, route template, status, ms, resolved client address).")
    public static let edgeFastPath = GatewaySetting(
        "edge.fast.path", env: "EDGE_FAST_PATH", default: "on",
        "on: cache hits of the mini-app info, manifest and bundle reads (a token seen before, an answer held in process) are answered on the connection's event loop, below the request pipeline; off: every request takes the full path. Off by itself while tracing, the access log or rate limits are on."
    )
    public static let logFormat = GatewaySetting("log.format", env: "LOG_FORMAT", default: "text", "text or json.")
    public static let configFile = GatewaySetting(
        "config.file", env: "CONFIG_FILE", default: nil, "Optional JSON file with these keys (nested objects).")
    public static let tenantReloadInterval = GatewaySetting(
        "tenants.reload.ms", env: "TENANTS_RELOAD_MS", default: "500",
        "How often the tenant snapshot checks the database for changes.")
    public static let upstreamBudget = GatewaySetting(
        "upstream.budget.ms", env: "UPSTREAM_BUDGET_MS", default: "5000",
        "Time budget of one request for its upstream calls (deadline of every upstream call).")
    public static let upstreamConnections = GatewaySetting(
        "upstream.connections.per.host", env: "UPSTREAM_CONNECTIONS_PER_HOST", default: "64",
        "Connections per upstream host in the shared HTTP client.")
    public static let demoCatalog = GatewaySetting(
        "demo.catalog", env: "DEMO_CATALOG", default: "Deploy/demo",
        "Folder served as the platform of tenant `demo` while it has no platform URL (relative to the working directory; empty = off)."
    )
    public static let cacheNearMilliseconds = GatewaySetting(
        "cache.near.ms", env: "CACHE_NEAR_MS", default: "1000",
        "How long a hot answer read from Redis is served from process memory (while fresh; 0 = always ask Redis).")
    public static let cacheStaleGraceMilliseconds = GatewaySetting(
        "cache.stale.grace.ms", env: "CACHE_STALE_GRACE_MS", default: "1000",
        "How long a request holding a stale copy waits for the upstream before the copy answers (the call goes on and fills the cache; 0 = wait for the upstream).")
    public static let breakerFailureRatio = GatewaySetting(
        "upstream.breaker.failure.percent", env: "UPSTREAM_BREAKER_FAILURE_PERCENT", default: "50",
        "Failed upstream calls (per tenant × upstream, 10 s window, at least 10 calls) that open the circuit, in percent."
    )
    public static let breakerOpenMilliseconds = GatewaySetting(
        "upstream.breaker.open.ms", env: "UPSTREAM_BREAKER_OPEN_MS", default: "5000",
        "How long an open circuit refuses calls before a half-open probe.")
    public static let upstreamMaxInFlight = GatewaySetting(
        "upstream.max.in.flight", env: "UPSTREAM_MAX_IN_FLIGHT", default: "256",
        "Bulkhead: concurrent calls per tenant × upstream; more wait.")
    public static let rateLimitTenant = GatewaySetting(
        "rate.limit.tenant", env: "RATE_LIMIT_TENANT", default: "0", "Requests per window per tenant (0 = unlimited).")
    public static let rateLimitClient = GatewaySetting(
        "rate.limit.client", env: "RATE_LIMIT_CLIENT", default: "0",
        "Requests per window per tenant and client id (0 = unlimited).")
    public static let rateLimitWindow = GatewaySetting(
        "rate.limit.window.seconds", env: "RATE_LIMIT_WINDOW_SECONDS", default: "60",
        "The rate limits' fixed window, in seconds (aligned to the epoch, shared by replicas).")
    public static let headerTimeout = GatewaySetting(
        "http.header.timeout.ms", env: "HTTP_HEADER_TIMEOUT_MS", default: "10000",
        "Time to send a request head, from the connection (or its first byte after idling); then the connection is closed."
    )
    public static let bodyTimeout = GatewaySetting(
        "http.body.timeout.ms", env: "HTTP_BODY_TIMEOUT_MS", default: "30000",
        "Time to send a request body after its head; then the connection is closed.")
    public static let idleTimeout = GatewaySetting(
        "http.idle.timeout.ms", env: "HTTP_IDLE_TIMEOUT_MS", default: "60000",
        "An idle keep-alive connection is closed after this long.")
    public static let maxConnections = GatewaySetting(
        "http.max.connections", env: "HTTP_MAX_CONNECTIONS", default: "0",
        "Client connections held at once (0 = the open-file limit less a reserve). Past 80 % the server is overloaded: the oldest idle connections and unfinished heads are closed down to 70 %, new header and idle timeouts are 1 s, and an address holding its fair share of 70 % gets no new connection."
    )
    public static let maxConnectionsPerAddress = GatewaySetting(
        "http.max.connections.per.address", env: "HTTP_MAX_CONNECTIONS_PER_ADDRESS", default: "256",
        "Connections held at once per client address (0 = no cap); more are closed at once. Trusted proxies' own connections are exempt."
    )
    public static let maxRequestsPerAddress = GatewaySetting(
        "http.max.requests.per.address", env: "HTTP_MAX_REQUESTS_PER_ADDRESS", default: "256",
        "Requests in flight at once per resolved client address (0 = no cap); more are answered 429 too_many_requests_in_flight."
    )
    public static let trustedProxies = GatewaySetting(
        "trusted.proxies", env: "TRUSTED_PROXIES", default: nil,
        "Comma-separated CIDR blocks of proxies whose Forwarded / X-Forwarded-For (and PROXY protocol) name the client; empty = trust nobody, the TCP peer is the client."
    )
    public static let proxyProtocol = GatewaySetting(
        "proxy.protocol", env: "PROXY_PROTOCOL", default: "off",
        "on: connections from trusted proxies begin with a PROXY protocol v1/v2 header naming the client (L4 load balancers); off: plain HTTP."
    )
    public static let maxFormBytes = GatewaySetting(
        "http.max.form.bytes", env: "HTTP_MAX_FORM_BYTES", default: "8192",
        "Largest body of the OAuth form endpoints; larger: 413.")
    public static let maxJSONBytes = GatewaySetting(
        "http.max.json.bytes", env: "HTTP_MAX_JSON_BYTES", default: "65536",
        "Largest JSON body of the other operations (storage writes: the tenant's cap + 64 KiB); larger: 413.")
    public static let maxAnalyticsBytes = GatewaySetting(
        "http.max.analytics.bytes", env: "HTTP_MAX_ANALYTICS_BYTES", default: "524288",
        "Largest analytics batch body; larger: 413.")

    public static let shutdownDrain = GatewaySetting(
        "shutdown.drain.ms", env: "SHUTDOWN_DRAIN_MS", default: "0",
        "On SIGTERM, how long /readyz answers 503 while requests are still served (let load balancers notice), before the server stops accepting."
    )
    public static let shutdownTimeout = GatewaySetting(
        "shutdown.timeout.ms", env: "SHUTDOWN_TIMEOUT_MS", default: "30000",
        "Longest graceful shutdown (drain + in-flight requests + closing pools); then remaining work is cancelled.")

    public static let replicaID = GatewaySetting(
        "replica.id", env: "REPLICA_ID", default: nil,
        "Name of this replica on every log line (`replica`) and metric (label `replica`); default: the host name (the pod name on Kubernetes)."
    )

    public static let tracing = GatewaySetting(
        "tracing", env: "TRACING", default: "off",
        "off, or otlp: a span per request, continuing the caller's W3C trace context and passed on to upstream calls, exported over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT."
    )

    public static let pushMaxDevicesPerUser = GatewaySetting(
        "push.max.devices.per.user", env: "PUSH_MAX_DEVICES_PER_USER", default: "20",
        "Push devices a user keeps (1-1000); registering one more drops the oldest.")
    public static let pushAPNsURL = GatewaySetting(
        "push.apns.url", env: "PUSH_APNS_URL", default: nil,
        "APNs endpoint for both environments (https; http only on loopback, for fakes); default: Apple's production and sandbox hosts by the device's environment."
    )
    public static let pushFCMURL = GatewaySetting(
        "push.fcm.url", env: "PUSH_FCM_URL", default: "https://fcm.googleapis.com",
        "FCM HTTP v1 endpoint (https; http only on loopback, for fakes).")
    public static let pushLease = GatewaySetting(
        "push.lease.ms", env: "PUSH_LEASE_MS", default: "60000",
        "How long a replica's claim on a batch of deliveries keeps others off (1000-3600000); a replica that dies leaves its batch to others after it.")
    public static let pushSendQuota = GatewaySetting(
        "push.send.quota", env: "PUSH_SEND_QUOTA", default: "600",
        "Notifications a tenant may queue per minute, counted across replicas (0 = unlimited); over it: 429 send_quota_exceeded.")
    public static let pushConcurrency = GatewaySetting(
        "push.concurrency", env: "PUSH_CONCURRENCY", default: "64",
        "Push provider calls in flight per replica (1-1000); 0 turns this replica's delivery worker off.")
    public static let courierCAFile = GatewaySetting(
        "courier.ca.file", env: "COURIER_CA_FILE", default: nil,
        "A PEM file of the certificate authorities tenants' SMTP relays are verified against (default: the system's trust store).")
    public static let courierConcurrency = GatewaySetting(
        "courier.concurrency", env: "COURIER_CONCURRENCY", default: "16",
        "Messages (e-mail, SMS) the courier sends at once per replica (1-1000); 0 turns this replica's courier off.")
    public static let courierRetryBase = GatewaySetting(
        "courier.retry.base.ms", env: "COURIER_RETRY_BASE_MS", default: "2000",
        "The courier's first backoff before a message is sent again after a transient failure (100-600000; doubling, jittered, at most 8 tries).")
    public static let messagesMaxContacts = GatewaySetting(
        "messages.max.contacts", env: "MESSAGES_MAX_CONTACTS", default: "5000",
        "Contacts a user may upload (1-100000); the upload body may hold 256 bytes per contact.")
    public static let messagesRetentionDays = GatewaySetting(
        "messages.retention.days", env: "MESSAGES_RETENTION_DAYS", default: "30",
        "Days a message stays in its recipient's inbox (1-365); the retention loop deletes it after.")
    public static let messagesPerMinute = GatewaySetting(
        "messages.per.minute", env: "MESSAGES_PER_MINUTE", default: "30",
        "Messages (one per recipient) a user may send per minute, counted across replicas (0 = unlimited); over it: 429 message_rate_limited.")
    public static let messagesPerDay = GatewaySetting(
        "messages.per.day", env: "MESSAGES_PER_DAY", default: "500",
        "Messages a user may send per UTC day, counted across replicas (0 = unlimited); over it: 429 message_rate_limited.")
    public static let messagesPerRecipientHour = GatewaySetting(
        "messages.per.recipient.hour", env: "MESSAGES_PER_RECIPIENT_HOUR", default: "60",
        "Messages a user may receive per hour from everyone (0 = unlimited); past it the recipient's outcome is rate_limited.")

    public static let jwksMaxAge = GatewaySetting(
        "jwks.max.age.s", env: "JWKS_MAX_AGE_S", default: "300",
        "Cache-Control max-age of JWKS answers in seconds (0-86400); `gatewayctl keys rotate --sign-after` must exceed it plus 5 s (the key reload), so every relying party holds a key before it signs."
    )

    public static let cibaPollInterval = GatewaySetting(
        "ciba.poll.interval.s", env: "CIBA_POLL_INTERVAL_S", default: "5",
        "Seconds a backchannel (CIBA) client waits between polls of the token endpoint (1-60; CIBA's default 5).")

    /// All settings, in help order.
    public static let all: [GatewaySetting] = [
        .httpHost, .httpPort, .adminHost, .adminPort, .adminRequireTOTP, .adminPublicBaseURL, .auditRetentionDays, .publicBaseURL, .databaseURL, .databaseTimeout, .databaseProbe, .databasePath, .redisURL,
        .masterKey, .masterKeyFile,
        .environment, .logLevel, .logFormat, .accessLog, .edgeFastPath, .configFile, .tenantReloadInterval, .jwksMaxAge, .cibaPollInterval,
        .upstreamBudget, .upstreamConnections, .upstreamMaxInFlight, .breakerFailureRatio, .breakerOpenMilliseconds,
        .cacheNearMilliseconds, .cacheStaleGraceMilliseconds, .demoCatalog, .rateLimitTenant, .rateLimitClient, .rateLimitWindow,
        .headerTimeout, .bodyTimeout, .idleTimeout, .maxConnections, .maxConnectionsPerAddress, .maxRequestsPerAddress,
        .trustedProxies, .proxyProtocol, .maxFormBytes, .maxJSONBytes, .maxAnalyticsBytes,
        .shutdownDrain, .shutdownTimeout, .replicaID, .tracing, .pushMaxDevicesPerUser,
        .pushAPNsURL, .pushFCMURL, .pushConcurrency, .pushSendQuota, .pushLease, .courierConcurrency, .courierCAFile, .courierRetryBase, .messagesMaxContacts,
        .messagesRetentionDays, .messagesPerMinute, .messagesPerDay, .messagesPerRecipientHour,
    ]
}
