import Foundation
import Logging
import Metrics

/// What happened to a batch.
public struct AnalyticsIngestResult: Sendable, Equatable, Codable {
    /// Events stored.
    public var accepted: Int
    /// Events refused, by batch index.
    public var rejected: [AnalyticsRejection]
}

/// Where an accepted `mini_app_open` event goes: the user's recently used mini apps
/// (``ConsentService`` keeps that list).
public protocol MiniAppOpenRecorder: Sendable {
    /// Records that the user opened the mini app now.
    func recordOpen(_ owner: UserMiniAppKey) async throws
}

/// Accepts analytics batches: validates, stores the valid events and counts them in
/// `gateway_analytics_events_total{tenant, mini_app, kind, type}`. An accepted
/// `mini_app_open` of a signed-in user makes that mini app their most recently used one.
public struct AnalyticsService: Sendable {
    /// The counter's label.
    public static let counterLabel = "gateway_analytics_events_total"

    private let store: any AnalyticsStore
    private let metrics: any MetricsFactory
    private let validator: AnalyticsBatchValidator
    private let now: @Sendable () -> Date
    private let opens: (any MiniAppOpenRecorder)?
    private let releaseHealth: ReleaseHealth?

    /// - Parameters:
    ///   - opens: where accepted `mini_app_open` events of a signed-in user are recorded
    ///     (nil: nowhere, for a deployment that keeps no recently used list).
    ///   - releaseHealth: counts accepted events against release candidates (the automatic halt).
    public init(
        store: any AnalyticsStore, metrics: any MetricsFactory, opens: (any MiniAppOpenRecorder)?,
        releaseHealth: ReleaseHealth? = nil,
        validator: AnalyticsBatchValidator = AnalyticsBatchValidator(), now: @escaping @Sendable () -> Date = WallClock.system.now
    ) {
        self.releaseHealth = releaseHealth
        self.opens = opens
        self.store = store
        self.metrics = metrics
        self.validator = validator
        self.now = now
    }

    /// Keeps the valid events of `inputs` and reports the others by index. Throws
    /// ``AnalyticsBatchError`` for a batch over the limit (nothing kept). With `userID`,
    /// each mini app of an accepted `mini_app_open` becomes that user's most recently used.
    public func ingest(
        tenantID: String, userID: String? = nil, _ inputs: [AnalyticsEventInput]
    ) async throws -> AnalyticsIngestResult {
        let (accepted, rejected) = try validator.validate(inputs)
        try await store.append(accepted, tenantID: tenantID, receivedAt: now())
        if let userID, let opens {
            let opened = Set(
                accepted.filter { $0.kind == .sdk && $0.type == AnalyticsVocabulary.miniAppOpen }.map(\.miniAppID))
            for miniAppID in opened.sorted() {
                try await opens.recordOpen(UserMiniAppKey(tenantID: tenantID, userID: userID, miniAppID: miniAppID))
            }
        }
        await releaseHealth?.record(tenantID: tenantID, userID: userID, events: accepted)
        for event in accepted {
            Counter(
                label: Self.counterLabel,
                dimensions: [
                    ("tenant", tenantID), ("mini_app", event.miniAppID), ("kind", event.kind.rawValue),
                    ("type", event.type),
                ], factory: metrics
            ).increment()
        }
        return AnalyticsIngestResult(accepted: accepted.count, rejected: rejected)
    }

    /// Counts since `since`.
    public func summary(tenantID: String, since: Date) async throws -> [AnalyticsCount] {
        try await store.summary(tenantID: tenantID, since: since)
    }
}

/// Deletes analytics older than `keepDays`, once per `interval` until cancelled.
public struct AnalyticsRetention: Sendable {
    private let store: any AnalyticsStore
    private let keepDays: Int
    private let interval: Duration
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// - Parameter clock: now, injected for tests.
    public init(
        store: any AnalyticsStore, keepDays: Int = 30, interval: Duration = .seconds(3600),
        clock: @escaping @Sendable () -> Date = WallClock.system.now, logger: Logger
    ) {
        self.store = store
        self.clock = clock
        self.keepDays = max(1, keepDays)
        self.interval = interval
        self.logger = logger
    }

    /// Deletes once now; returns how many events were removed.
    @discardableResult
    public func purge() async throws -> Int {
        try await store.deleteReceived(before: clock().addingTimeInterval(-Double(keepDays) * 86_400))
    }

    /// Purges every `interval` until the task is cancelled; failures are logged, never thrown.
    public func run() async {
        await Periodic.run(every: interval, name: "analytics retention", logger: logger) {
            let removed = try await purge()
            logger.debug("analytics retention", metadata: ["removed": "\(removed)", "keepDays": "\(keepDays)"])
        }
    }
}
