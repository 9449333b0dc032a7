import CoreMetrics
import Foundation
import GatewayCore
import Prometheus
import Synchronization

/// The gateway's Prometheus registry and the HTTP instruments, injected (no global
/// bootstrap needed, so several gateways can run in one test process).
public final class GatewayMetrics: Sendable {
    /// Registry rendered by `GET /metrics`.
    public let registry: PrometheusCollectorRegistry
    /// swift-metrics factory over the same registry, for GatewayCore instruments.
    public let factory: any MetricsFactory

    struct RouteKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    struct RouteInstruments: Sendable {
        let requests: Prometheus.Counter
        let duration: DurationHistogram
    }

    private let routes = Mutex<[RouteKey: RouteInstruments]>([:])

    struct TenantClass: Hashable {
        let tenant: String
        let statusClass: Int
    }

    private let tenantRequests = Mutex<[TenantClass: Prometheus.Counter]>([:])
    /// Each tenant's requests, errors and latencies per 10-minute window, for every replica
    /// to read (the console's overview); flushed to the shared cache by the gateway's loop.
    let traffic = TenantTraffic()
    /// Counters made on first use, by name and label values (per-tenant ones only for tenants
    /// that exist, so the labels stay bounded by the tenant count).
    private let labelledCounters = Mutex<[String: Prometheus.Counter]>([:])
    /// Gauges set from live state just before each exposition (pool connections, ...).
    private let samplers = Mutex<[@Sendable () -> Void]>([])

    static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
    ]

    /// Connections closed for missing a deadline, by phase (see ``ConnectionDeadlines``).
    private let connectionTimeouts: [ConnectionDeadlines.Phase: Prometheus.Counter]
    /// Added to every sample as the label `replica` when rendered.
    private let replica: String?

    /// - Parameter replica: the replica id every sample carries (label `replica`); a valid one
    ///   (see ``GatewayConfiguration/replicaID``), so it needs no escaping.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), replica: String? = nil) {
        self.registry = registry
        self.replica = replica
        self.factory = PrometheusMetricsFactory(registry: registry)
        var timeouts: [ConnectionDeadlines.Phase: Prometheus.Counter] = [:]
        for (phase, name) in [
            (ConnectionDeadlines.Phase.awaitingHead, "header"), (.readingBody, "body"), (.responding, "response"),
            (.idle, "idle"),
        ] {
            timeouts[phase] = registry.makeCounter(
                descriptor: Self.descriptor(
                    "gateway_http_connection_timeouts_total",
                    "Client connections closed for missing a deadline, by phase."),
                labels: [("phase", name)])
        }
        connectionTimeouts = timeouts
    }

    /// The Prometheus text exposition of every metric, each sample labelled with the replica.
    public func exposition() -> String {
        for sample in samplers.withLock({ $0 }) { sample() }
        let text = registry.emitToString()
        guard let replica else { return text }
        return Self.labelling(text, replica: replica)
    }

    /// Adds `replica="…"` as the first label of every sample line (comments stay as they are).
    static func labelling(_ text: String, replica: String) -> String {
        let label = "replica=\"\(replica)\""
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.isEmpty || line.first == "#" { return String(line) }
            if let brace = line.firstIndex(of: "{") {
                let rest = line[line.index(after: brace)...]
                return line[...brace] + label + (rest.first == "}" ? "" : ",") + rest
            }
            guard let space = line.firstIndex(of: " ") else { return String(line) }
            return line[..<space] + "{" + label + "}" + line[space...]
        }.joined(separator: "\n")
    }

    /// A gauge set by `read` every time metrics are rendered (for state owned elsewhere, such
    /// as how many connections a pool holds).
    public func sampledGauge(
        _ name: String, _ help: String, labels: [(String, String)] = [], read: @escaping @Sendable () -> Double
    ) {
        let gauge = registry.makeGauge(descriptor: Self.descriptor(name, help), labels: labels)
        beforeExposition { gauge.set(read()) }
    }

    /// Runs `sample` every time metrics are rendered, before they are (to set instruments
    /// from live state owned elsewhere).
    public func beforeExposition(_ sample: @escaping @Sendable () -> Void) {
        samplers.withLock { $0.append(sample) }
    }

    /// Counts one answered request of an existing tenant, by status class (`2xx` … `5xx`).
    /// Every request counts here: its counters are found by a key of two fields, not a
    /// joined label string.
    /// Also counts it in ``traffic`` (the console's figures, flushed to the shared cache).
    func recordTenantRequest(tenant: String, status: Int, duration: Duration) {
        traffic.record(
            tenant: tenant, status: status, milliseconds: Double(duration.nanoseconds) / 1_000_000, at: Date())
        let key = TenantClass(tenant: tenant, statusClass: status / 100)
        let counter = tenantRequests.withLock { cache in
            if let found = cache[key] { return found }
            let made = registry.makeCounter(
                descriptor: Self.descriptor(
                    "gateway_tenant_requests_total", "Answered requests of each tenant by status class."),
                labels: [("tenant", tenant), ("class", "\(key.statusClass)xx")])
            cache[key] = made
            return made
        }
        counter.increment()
    }

    /// Counts tokens issued by the token endpoint, by tenant and grant type (refresh/s).
    func recordTokenIssued(tenant: String, grantType: String) {
        increment("gateway_tokens_issued_total", "Token responses of the token endpoint by tenant and grant type.",
                  labels: [("tenant", tenant), ("grant_type", grantType)])
    }

    /// A backchannel (CIBA) request's step by tenant and client: `requested`, `approved`,
    /// `denied`, `expired`, `redeemed`.
    func recordBackchannel(tenant: String, client: String, event: String) {
        increment(
            "gateway_ciba_requests_total", "Backchannel authentication requests by tenant, client and step.",
            labels: [("tenant", tenant), ("client", client), ("event", event)])
    }

    /// Increments the counter `name` with `labels`, making it on first use.
    func increment(_ name: String, _ help: String, labels: [(String, String)]) {
        let key = ([name] + labels.map(\.1)).joined(separator: "|")
        let counter = labelledCounters.withLock { cache in
            if let found = cache[key] { return found }
            let made = registry.makeCounter(descriptor: Self.descriptor(name, help), labels: labels)
            cache[key] = made
            return made
        }
        counter.increment()
    }

    /// A metric named exactly `name` (no namespace or unit suffix) with its help text.
    static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// Counts a connection closed for missing its deadline in `phase`.
    func recordConnectionTimeout(_ phase: ConnectionDeadlines.Phase) {
        connectionTimeouts[phase]?.increment()
    }

    /// Counts one answered request and records its latency, by route template and status.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let key = RouteKey(route: route, method: method, status: status)
        let instruments = routes.withLock { cache in
            if let found = cache[key] { return found }
            let labels = [("route", route), ("method", method), ("status", String(status))]
            let made = RouteInstruments(
                requests: registry.makeCounter(
                    descriptor: Self.descriptor(
                        "gateway_http_requests_total", "Answered requests by route template, method and status."),
                    labels: labels),
                duration: registry.makeDurationHistogram(
                    descriptor: Self.descriptor(
                        "gateway_http_request_duration_seconds", "Request latency by route template, method and status."
                    ),
                    labels: labels, buckets: Self.latencyBuckets)
            )
            cache[key] = made
            return made
        }
        instruments.requests.increment()
        instruments.duration.recordNanoseconds(duration.nanoseconds)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}
