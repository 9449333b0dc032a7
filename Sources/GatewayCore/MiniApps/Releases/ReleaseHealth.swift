import Foundation
import Logging
import Metrics

/// The automatic halt: counts opens and failures (``AnalyticsVocabulary/isFailure(_:)``) of
/// a mini app's candidate and of everything else it runs (the stable side), in a sliding
/// window shared by replicas (the shared cache: Redis), and halts the rollout when the
/// policy's ``AutoHaltRule`` says the candidate fails too often. Only mini apps whose policy
/// has an active candidate with a rule are counted: analytics of the others cost nothing.
///
/// Only what the gateway can attribute counts, so no user can forge a halt (or hide a bad
/// candidate behind failures of stable):
/// - an event counts for a version only when the gateway itself served that version of the
///   mini app to the event's user (``ServedVersions``); anonymous events never count;
/// - a user counts at most one open and one failure per side per window, however many
///   events they send;
/// - the rule compares the sides only once each has ``AutoHaltRule/minUsers`` distinct users.
/// Events are stored as analytics either way; the halt ignores what it cannot attribute.
///
/// The window slides as the rate limiter's does: two fixed windows, the previous one
/// weighted by how much of it still overlaps.
public struct ReleaseHealth: Sendable {
    /// The counters' label of halts, by tenant and mini app.
    public static let haltsLabel = "gateway_release_halts_total"
    /// The window opens and failures are counted over by default.
    public static let defaultWindow = Duration.seconds(600)

    private let table: ReleaseTable
    private let cache: any Cache
    private let served: ServedVersions
    private let service: ReleaseService
    private let clock: WallClock
    private let window: TimeInterval
    private let metrics: any MetricsFactory
    private let logger: Logger

    /// - Parameters:
    ///   - served: what the gateway served to whom (the same ledger ``MiniAppReleases`` writes).
    ///   - window: how far back opens and failures count (default 10 minutes).
    public init(
        table: ReleaseTable, store: any ReleasePolicyStore, cache: any Cache, served: ServedVersions, clock: WallClock,
        window: Duration = ReleaseHealth.defaultWindow, metrics: any MetricsFactory, logger: Logger
    ) {
        self.table = table
        self.cache = cache
        self.served = served
        self.service = ReleaseService(store: store, clock: clock)
        self.clock = clock
        self.window = Double(window.components.seconds)
        self.metrics = metrics
        self.logger = logger
    }

    /// What one side counted in the window: users with an attributed open or failure, and
    /// opens and failures (one of each per user per window).
    public struct Tally: Sendable, Equatable {
        public var opens: Double
        public var failures: Double
        public var users: Double

        public init(opens: Double, failures: Double, users: Double) {
            self.opens = opens
            self.failures = failures
            self.users = users
        }

        /// Failures per open (0 without opens).
        public var rate: Double { opens > 0 ? failures / opens : 0 }
    }

    /// The series a side counts, each at most once per user per window.
    enum Series: String, CaseIterable {
        case opens, failures, users
    }

    /// Counts the events of `userID` in `tenantID` that the gateway can attribute, and halts
    /// what the counts condemn. Never throws: the analytics batch is already stored; a cache or
    /// store failure is logged.
    public func record(tenantID: String, userID: String?, events: [AnalyticsEvent]) async {
        guard let userID, table.hasPolicies(tenantID: tenantID) else { return }
        let watched = table.policies(tenantID: tenantID).filter { ServedVersions.watches($0.value) }
        guard !watched.isEmpty else { return }
        let now = clock.now().timeIntervalSince1970
        for (miniAppID, policy) in watched {
            guard let candidate = policy.candidate, let rule = policy.autoHalt else { continue }
            let byVersion = Dictionary(
                grouping: events.filter { $0.miniAppID == miniAppID && $0.versionID != nil }, by: { $0.versionID ?? "" })
            guard !byVersion.isEmpty else { continue }
            do {
                var counted = false
                for (version, ofVersion) in byVersion {
                    let opened = ofVersion.contains { $0.kind == .sdk && $0.type == AnalyticsVocabulary.miniAppOpen }
                    let failed = ofVersion.contains(where: AnalyticsVocabulary.isFailure)
                    guard opened || failed,
                        try await served.wasServed(
                            tenantID: tenantID, miniAppID: miniAppID, version: version, userID: userID)
                    else { continue }
                    let side = version == candidate.version
                    for (series, present) in [(Series.users, true), (.opens, opened), (.failures, failed)] where present {
                        let key = Self.key(tenantID, miniAppID, candidate.version, side, series, bucket: bucket(now))
                        let ttl = Duration.seconds(Int64(window * 2) + 60)
                        guard try await cache.setIfAbsent(key + ":" + CacheKey.escape(userID), [1], ttl: ttl) else {
                            continue
                        }
                        // The counters outlive the sliding window: the console's chart reads them.
                        let kept = Duration.seconds(Int64(window) * Int64(ReleaseHealthSeries.kept + 1) + 60)
                        _ = try await cache.increment(key, by: 1, ttl: kept)
                        counted = true
                    }
                }
                guard counted else { continue }
                let candidateTally = try await tally(tenantID, miniAppID, candidate.version, candidate: true, now: now)
                let stableTally = try await tally(tenantID, miniAppID, candidate.version, candidate: false, now: now)
                if Self.condemns(candidate: candidateTally, stable: stableTally, rule: rule) {
                    await halt(tenantID, miniAppID, candidate.version, candidateTally, stableTally, rule)
                }
            } catch {
                logger.warning(
                    "release health not counted", metadata: ["tenant": "\(tenantID)", "miniapp": "\(miniAppID)",
                    "error": "\(error)"])
            }
        }
    }

    /// Whether the candidate's failure rate exceeds `rule.errorRatio` times stable's, both
    /// sides with at least `rule.minOpens` opens and `rule.minUsers` users in the window
    /// (without them there is nothing to compare with). Stable counts as at least one failure,
    /// so a stable side that has not failed yet does not make the candidate's first failure a halt.
    public static func condemns(candidate: Tally, stable: Tally, rule: AutoHaltRule) -> Bool {
        let enough = Double(rule.minOpens), people = Double(rule.minUsers)
        guard candidate.opens >= enough, stable.opens >= enough, candidate.users >= people, stable.users >= people,
            candidate.failures > 0
        else { return false }
        return candidate.rate > rule.errorRatio * max(stable.failures, 1) / stable.opens
    }

    private func halt(
        _ tenantID: String, _ miniAppID: String, _ version: String, _ candidate: Tally, _ stable: Tally,
        _ rule: AutoHaltRule
    ) async {
        func percent(_ rate: Double) -> String { String(format: "%.1f%%", rate * 100) }
        let reason =
            "automatic halt: candidate \(version) failed on \(percent(candidate.rate)) of \(Int(candidate.opens)) opens, "
            + "stable on \(percent(stable.rate)) of \(Int(stable.opens)) (limit \(rule.errorRatio)x) in the last \(Int(window / 60)) min, "
            + "\(Int(candidate.users)) and \(Int(stable.users)) users"
        do {
            _ = try await service.halt(.init(tenantID: tenantID, miniAppID: miniAppID, actor: "gateway", reason: reason))
        } catch ReleasePolicyError.noCandidate {
            return  // another replica halted it first (or an operator changed it): it logged
        } catch {
            logger.warning(
                "release halt not stored", metadata: ["tenant": "\(tenantID)", "miniapp": "\(miniAppID)", "error": "\(error)"])
            return
        }
        Counter(label: Self.haltsLabel, dimensions: [("tenant", tenantID), ("mini_app", miniAppID)], factory: metrics)
            .increment()
        logger.warning(
            "release halted", metadata: ["tenant": "\(tenantID)", "miniapp": "\(miniAppID)", "reason": "\(reason)"])
    }

    /// One side's sliding-window counts.
    func tally(_ tenantID: String, _ miniAppID: String, _ version: String, candidate: Bool, now: TimeInterval)
        async throws -> Tally
    {
        let current = bucket(now)
        let overlap = 1 - (now - Double(current) * window) / window
        var values: [Double] = []
        for series in Series.allCases {
            var total = 0.0
            for (bucket, weight) in [(current, 1.0), (current - 1, overlap)] {
                let key = Self.key(tenantID, miniAppID, version, candidate, series, bucket: bucket)
                let bytes = try await cache.get(key) ?? []
                total += Double(Int(String(decoding: bytes, as: UTF8.self)) ?? 0) * weight
            }
            values.append(total)
        }
        return Tally(opens: values[0], failures: values[1], users: values[2])
    }

    func bucket(_ now: TimeInterval) -> Int64 { Int64((now / window).rounded(.down)) }

    static func key(
        _ tenantID: String, _ miniAppID: String, _ version: String, _ candidate: Bool, _ series: Series, bucket: Int64
    ) -> String {
        CacheKey.releaseHealth(
            tenantID: tenantID, miniAppID: miniAppID, candidate: version, side: candidate ? "candidate" : "stable",
            series: series.rawValue, bucket: bucket)
    }
}
