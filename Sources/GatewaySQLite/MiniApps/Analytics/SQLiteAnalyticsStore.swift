import Foundation
import GatewayCore
import GRDB

/// ``AnalyticsStore`` in the tenant store's SQLite file (`analytics_events`).
public final class SQLiteAnalyticsStore: AnalyticsStore {
    private let pool: DatabasePool

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
    }

    public func append(_ events: [AnalyticsEvent], tenantID: String, receivedAt: Date) async throws {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let rows = try events.map { ($0, String(decoding: try encoder.encode($0), as: UTF8.self)) }
        let at = StoreClock.milliseconds(receivedAt)
        try await pool.write { db in
            for (event, json) in rows {
                try db.execute(
                    sql: """
                        INSERT INTO analytics_events (tenant_id, miniapp_id, kind, type, event_json, received_at_ms) VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: [tenantID, event.miniAppID, event.kind.rawValue, event.type, json, at])
            }
        }
    }

    public func summary(tenantID: String, since: Date) async throws -> [AnalyticsCount] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT miniapp_id, kind, type, COUNT(*) FROM analytics_events
                    WHERE tenant_id = ? AND received_at_ms >= ? GROUP BY miniapp_id, kind, type ORDER BY miniapp_id, kind, type
                    """, arguments: [tenantID, StoreClock.milliseconds(since)]
            ).compactMap { row in
                guard let kind = AnalyticsEvent.Kind(rawValue: row[1]) else { return nil }
                return AnalyticsCount(miniAppID: row[0], kind: kind, type: row[2], count: row[3])
            }
        }
    }

    @discardableResult
    public func deleteReceived(before cutoff: Date) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM analytics_events WHERE received_at_ms < ?",
                arguments: [StoreClock.milliseconds(cutoff)])
            return db.changesCount
        }
    }
}
