import Foundation

/// Durable, append-only analytics with retention.
public protocol AnalyticsStore: Sendable {
    /// Appends `events` of `tenantID`, received at `receivedAt`, in one transaction.
    func append(_ events: [AnalyticsEvent], tenantID: String, receivedAt: Date) async throws
    /// Counts per mini app, kind and type of events received since `since`, sorted by mini app then type.
    func summary(tenantID: String, since: Date) async throws -> [AnalyticsCount]
    /// Deletes events received before `cutoff` (all tenants); returns how many.
    @discardableResult
    func deleteReceived(before cutoff: Date) async throws -> Int
}

/// One summary row.
public struct AnalyticsCount: Sendable, Equatable, Codable {
    /// The mini app.
    public var miniAppID: String
    /// SDK or mini-app event.
    public var kind: AnalyticsEvent.Kind
    /// SDK event name or mini-app eventType.
    public var type: String
    /// Events counted.
    public var count: Int

    public init(miniAppID: String, kind: AnalyticsEvent.Kind, type: String, count: Int) {
        self.miniAppID = miniAppID
        self.kind = kind
        self.type = type
        self.count = count
    }
}
