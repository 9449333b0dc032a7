import CoreMetrics
import Foundation
import Synchronization

/// The courier as metrics, per tenant × channel:
/// - `gateway_courier_messages_total{tenant,channel,outcome}`: attempts by what they came to
///   (`sent`, `retry`, `failed`);
/// - `gateway_courier_failures_total{tenant,channel,reason}`: why attempts did not succeed
///   (`not_configured`, `circuit_open`, the transport's first words);
/// - `gateway_courier_outbox_pending{tenant,channel}` and
///   `gateway_courier_outbox_oldest_seconds{…}`: messages waiting and how long the oldest has
///   been due (sampled by the worker).
public final class CourierMetrics: Sendable {
    private let factory: any MetricsFactory
    private let backlogSeries = Mutex<Set<Series>>([])

    private struct Series: Hashable {
        var tenantID: String
        var channel: CourierMessage.Channel
    }

    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.factory = factory
    }

    func attempted(_ message: CourierMessage, outcome: String) {
        Counter(
            label: "gateway_courier_messages_total",
            dimensions: [("tenant", message.tenantID), ("channel", message.channel.rawValue), ("outcome", outcome)],
            factory: factory
        ).increment()
    }

    func failed(_ message: CourierMessage, reason: String) {
        // The reason's first words only: an answer may carry an address or a long text.
        let short = reason.split(separator: " ").prefix(2).joined(separator: " ").prefix(48)
        Counter(
            label: "gateway_courier_failures_total",
            dimensions: [("tenant", message.tenantID), ("channel", message.channel.rawValue), ("reason", String(short))],
            factory: factory
        ).increment()
    }

    /// Sets the backlog gauges; tenant × channel pairs gone since the last sample read zero.
    func backlog(_ entries: [CourierBacklogEntry], now: Date) {
        let series = Set(entries.map { Series(tenantID: $0.tenantID, channel: $0.channel) })
        let gone = backlogSeries.withLock { last in
            defer { last = series }
            return last.subtracting(series)
        }
        for drained in gone {
            let (pending, oldest) = gauges(drained)
            pending.record(0)
            oldest.record(0)
        }
        for entry in entries {
            let (pending, oldest) = gauges(Series(tenantID: entry.tenantID, channel: entry.channel))
            pending.record(entry.pending)
            oldest.record(max(0, now.timeIntervalSince(entry.oldestDueAt)))
        }
    }

    private func gauges(_ series: Series) -> (pending: Gauge, oldest: Gauge) {
        let dimensions = [("tenant", series.tenantID), ("channel", series.channel.rawValue)]
        return (
            Gauge(label: "gateway_courier_outbox_pending", dimensions: dimensions, factory: factory),
            Gauge(label: "gateway_courier_outbox_oldest_seconds", dimensions: dimensions, factory: factory)
        )
    }
}
