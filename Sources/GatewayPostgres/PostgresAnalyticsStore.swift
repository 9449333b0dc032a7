import Foundation
import GatewayCore
import PostgresNIO

/// ``AnalyticsStore`` on PostgreSQL (`analytics_events`): a batch is one INSERT.
public struct PostgresAnalyticsStore: AnalyticsStore {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func append(_ events: [AnalyticsEvent], tenantID: String, receivedAt: Date) async throws {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try events.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try await database.pool.execute("""
            INSERT INTO analytics_events (tenant_id, miniapp_id, kind, type, event_json, received_at_ms)
            SELECT \(tenantID), m, k, t, j, \(StoreClock.milliseconds(receivedAt))
            FROM unnest(\(events.map(\.miniAppID))::text[], \(events.map(\.kind.rawValue))::text[], \(events.map(\.type))::text[], \(json)::text[]) AS e(m, k, t, j)
            """)
    }

    public func summary(tenantID: String, since: Date) async throws -> [AnalyticsCount] {
        try await database.pool.all("""
            SELECT miniapp_id, kind, type, count(*) FROM analytics_events WHERE tenant_id = \(tenantID) AND received_at_ms >= \(StoreClock.milliseconds(since))
            GROUP BY miniapp_id, kind, type ORDER BY miniapp_id COLLATE "C", kind COLLATE "C", type COLLATE "C"
            """, as: (String, String, String, Int64).self
        ).compactMap { miniApp, kind, type, count in
            AnalyticsEvent.Kind(rawValue: kind).map {
                AnalyticsCount(miniAppID: miniApp, kind: $0, type: type, count: Int(count))
            }
        }
    }

    @discardableResult
    public func deleteReceived(before cutoff: Date) async throws -> Int {
        try await database.pool.execute(
            "DELETE FROM analytics_events WHERE received_at_ms < \(StoreClock.milliseconds(cutoff)) RETURNING 1")
    }
}
