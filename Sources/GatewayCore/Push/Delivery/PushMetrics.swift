import CoreMetrics
import Foundation
import Synchronization

/// Push delivery as metrics, per tenant × provider:
/// - `gateway_push_deliveries_total{tenant,provider,outcome}`: provider calls by what they came
///   to (`sent`, `invalid_token`, `retry`, `failed`);
/// - `gateway_push_failures_total{tenant,provider,reason}`: why calls did not succeed (the
///   provider's reason, e.g. `UNREGISTERED`, `TooManyRequests`, `not_configured`, `timeout`);
/// - `gateway_push_outbox_pending{tenant,provider}` and `gateway_push_outbox_oldest_seconds{…}`:
///   deliveries waiting and how long the oldest has been due (sampled by the worker);
/// - `gateway_push_claims_released_total`: claims a stopping worker handed back uncalled.
public final class PushMetrics: Sendable {
    private let factory: any MetricsFactory
    /// The backlog series last set, so series of a drained backlog go to zero.
    private let backlogSeries = Mutex<Set<Series>>([])

    private struct Series: Hashable {
        var tenantID: String
        var provider: PushProvider
    }

    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.factory = factory
    }

    func delivered(_ delivery: ClaimedDelivery, outcome: String) {
        Counter(
            label: "gateway_push_deliveries_total",
            dimensions: [
                ("tenant", delivery.tenantID), ("provider", delivery.provider.rawValue), ("outcome", outcome),
            ], factory: factory
        ).increment()
    }

    func failed(_ delivery: ClaimedDelivery, reason: String) {
        Counter(
            label: "gateway_push_failures_total",
            dimensions: [
                ("tenant", delivery.tenantID), ("provider", delivery.provider.rawValue),
                ("reason", String(reason.prefix(64))),
            ], factory: factory
        ).increment()
    }

    /// Counts claims handed back uncalled by a stopping worker.
    func released(_ count: Int) {
        Counter(label: "gateway_push_claims_released_total", factory: factory).increment(by: count)
    }

    /// Sets the backlog gauges; tenant × provider pairs gone since the last sample read zero.
    func backlog(_ entries: [PushBacklogEntry], now: Date) {
        let series = Set(entries.map { Series(tenantID: $0.tenantID, provider: $0.provider) })
        let gone = backlogSeries.withLock { last in
            defer { last = series }
            return last.subtracting(series)
        }
        for drained in gone {
            let (pending, oldest) = gauges(tenantID: drained.tenantID, provider: drained.provider)
            pending.record(0)
            oldest.record(0)
        }
        for entry in entries {
            let (pending, oldest) = gauges(tenantID: entry.tenantID, provider: entry.provider)
            pending.record(entry.pending)
            oldest.record(max(0, now.timeIntervalSince(entry.oldestDueAt)))
        }
    }

    private func gauges(tenantID: String, provider: PushProvider) -> (pending: Gauge, oldest: Gauge) {
        let dimensions = [("tenant", tenantID), ("provider", provider.rawValue)]
        return (
            Gauge(label: "gateway_push_outbox_pending", dimensions: dimensions, factory: factory),
            Gauge(label: "gateway_push_outbox_oldest_seconds", dimensions: dimensions, factory: factory)
        )
    }
}

/// Deliveries waiting for one tenant × provider.
public struct PushBacklogEntry: Sendable, Equatable {
    public var tenantID: String
    public var provider: PushProvider
    public var pending: Int
    /// When the longest-waiting one became due.
    public var oldestDueAt: Date

    public init(tenantID: String, provider: PushProvider, pending: Int, oldestDueAt: Date) {
        self.tenantID = tenantID
        self.provider = provider
        self.pending = pending
        self.oldestDueAt = oldestDueAt
    }
}
