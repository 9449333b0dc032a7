import Foundation
import Metrics
import Synchronization

/// What operators watch of staged releases: how often each version of a mini app under a
/// policy is served, and each policy's rollout share and state (set from the
/// ``ReleaseTable`` when metrics are read). Mini apps without a policy cost nothing here.
public final class ReleaseMetrics: Sendable {
    /// Counter of answers naming a version, by tenant, mini app and version.
    public static let servedLabel = "gateway_release_versions_served_total"
    /// Gauge of the share of users offered the candidate now (0–100; 0 when halted or none).
    public static let shareLabel = "gateway_release_candidate_percent"
    /// Gauge, 1 for the candidate's state (`active`, `paused`, `halted`, `none`), else 0.
    public static let stateLabel = "gateway_release_candidate_state"

    private let factory: any MetricsFactory
    private let table: ReleaseTable
    private let clock: WallClock
    private let counters = BoundedMemo<Counter>()
    /// The gauges set at the last sample, by tenant and mini app, so a policy that is gone
    /// loses its series.
    private let gauges = Mutex<[PolicyKey: [Gauge]]>([:])

    private struct PolicyKey: Hashable {
        let tenantID: String
        let miniAppID: String
    }

    /// The states the state gauge reports; `none`: no candidate.
    static let states = RolloutState.allCases.map(\.rawValue) + ["none"]

    public init(table: ReleaseTable, clock: WallClock, factory: any MetricsFactory) {
        self.table = table
        self.clock = clock
        self.factory = factory
    }

    /// Counts one answer (or list item) that named `version` of `miniAppID`.
    public func served(tenantID: String, miniAppID: String, version: String) {
        counters.value(tenantID + "\u{0}" + miniAppID + "\u{0}" + version) {
            Counter(
                label: Self.servedLabel,
                dimensions: [("tenant", tenantID), ("mini_app", miniAppID), ("version", version)], factory: factory)
        }.increment()
    }

    /// Sets the share and state gauges of every policy in the table and drops those of
    /// policies that are gone (call before metrics are rendered).
    public func sample() {
        let now = clock.now()
        var made: [PolicyKey: [Gauge]] = [:]
        for policy in table.allPolicies() {
            let key = PolicyKey(tenantID: policy.tenantID, miniAppID: policy.miniAppID)
            let labels = [("tenant", policy.tenantID), ("mini_app", policy.miniAppID)]
            let share = Gauge(label: Self.shareLabel, dimensions: labels, factory: factory)
            share.record(Self.share(of: policy.candidate, at: now))
            let current = policy.candidate?.state.rawValue ?? "none"
            var series = [share]
            for state in Self.states {
                let gauge = Gauge(label: Self.stateLabel, dimensions: labels + [("state", state)], factory: factory)
                gauge.record(state == current ? 1 : 0)
                series.append(gauge)
            }
            made[key] = series
        }
        let gone = gauges.withLock { held in
            let gone = held.filter { made[$0.key] == nil }.flatMap(\.value)
            held = made
            return gone
        }
        for gauge in gone { gauge.destroy() }
    }

    /// The share of users offered `candidate` at `now`.
    static func share(of candidate: ReleaseCandidate?, at now: Date) -> Double {
        guard let candidate, candidate.state != .halted else { return 0 }
        return Double(candidate.share(at: now).basisPoints) / 100
    }
}
