import Foundation

/// A tenant's analytics events counted per mini app and type since a time
/// (`gatewayctl analytics summary --json`, the admin API).
public struct AnalyticsSummaryReport: Sendable, Codable, Equatable {
    public var tenant: String
    public var since: Date
    public var total: Int
    public var counts: [AnalyticsCount]

    public init(tenant: String, since: Date, counts: [AnalyticsCount]) {
        self.tenant = tenant
        self.since = since
        self.total = counts.reduce(0) { $0 + $1.count }
        self.counts = counts
    }
}
