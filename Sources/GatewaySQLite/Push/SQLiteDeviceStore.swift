import Foundation
import GatewayCore
import GRDB

/// ``DeviceStore`` in the tenant store's SQLite file (`push_devices`); a registration is one
/// IMMEDIATE write transaction, so registrations of one token never race.
public final class SQLiteDeviceStore: DeviceStore {
    private let pool: DatabasePool
    private let sealer: SecretSealer

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
        self.sealer = database.sealer
    }

    private static let columns = """
        device_id, user_id, provider, token_sealed, platform, locale, app_version, apns_environment, created_at_ms, updated_at_ms
        """

    public func register(_ device: PushDevice, maxPerUser: Int) async throws -> DeviceRegistration {
        let fingerprint = StoredDeviceRow.fingerprint(of: device, sealer: sealer)
        let fresh = try StoredDeviceRow(device, sealer: sealer)
        let (row, created, moved, dropped) = try await pool.write { db in
            let held = try Row.fetchOne(
                db,
                sql: "SELECT \(Self.columns) FROM push_devices WHERE tenant_id = ? AND provider = ? AND token_fingerprint = ?",
                arguments: [device.tenantID, fresh.provider, fingerprint]
            ).map(Self.stored)
            var row = fresh
            if let held, held.userID == device.userID {
                row.id = held.id
                row.tokenSealed = held.tokenSealed
                row.createdAtMS = held.createdAtMS
                try db.execute(
                    sql: """
                        UPDATE push_devices SET platform = ?, locale = ?, app_version = ?, apns_environment = ?, updated_at_ms = ?
                        WHERE tenant_id = ? AND device_id = ?
                        """,
                    arguments: [row.platform, row.locale, row.appVersion, row.apnsEnvironment, row.updatedAtMS,
                                device.tenantID, row.id])
            } else {
                if let held {
                    try db.execute(
                        sql: "DELETE FROM push_devices WHERE tenant_id = ? AND device_id = ?",
                        arguments: [device.tenantID, held.id])
                }
                try db.execute(
                    sql: """
                        INSERT INTO push_devices (tenant_id, token_fingerprint, \(Self.columns))
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [device.tenantID, fingerprint, row.id, row.userID, row.provider, row.tokenSealed,
                                row.platform, row.locale, row.appVersion, row.apnsEnvironment, row.createdAtMS,
                                row.updatedAtMS])
            }
            // The newest registrations stay; this one first, whatever the clock says.
            try db.execute(
                sql: """
                    DELETE FROM push_devices WHERE tenant_id = ?1 AND device_id IN (
                        SELECT device_id FROM push_devices WHERE tenant_id = ?1 AND user_id = ?2
                        ORDER BY device_id = ?3 DESC, updated_at_ms DESC, created_at_ms DESC, device_id LIMIT -1 OFFSET ?4)
                    """, arguments: [device.tenantID, device.userID, row.id, maxPerUser])
            let dropped = db.changesCount
            return (row, held?.userID != device.userID, held != nil && held?.userID != device.userID, dropped)
        }
        return DeviceRegistration(
            device: try row.device(tenantID: device.tenantID, sealer: sealer), created: created,
            movedFromOtherUser: moved, dropped: dropped)
    }

    public func devices(tenantID: String, userID: String) async throws -> [PushDevice] {
        let rows = try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.columns) FROM push_devices WHERE tenant_id = ? AND user_id = ?
                    ORDER BY updated_at_ms DESC, device_id
                    """, arguments: [tenantID, userID]
            ).map(Self.stored)
        }
        return try rows.map { try $0.device(tenantID: tenantID, sealer: sealer) }
    }

    public func remove(tenantID: String, userID: String, deviceID: String) async throws -> Bool {
        try await pool.changes(
            sql: "DELETE FROM push_devices WHERE tenant_id = ? AND user_id = ? AND device_id = ?",
            arguments: [tenantID, userID, deviceID]) > 0
    }

    public func setSignInRequests(_ enabled: Bool, tenantID: String, userID: String, deviceID: String) async throws
        -> Bool
    {
        try await pool.changes(
            sql: "UPDATE push_devices SET sign_in_requests = ? WHERE tenant_id = ? AND user_id = ? AND device_id = ?",
            arguments: [enabled, tenantID, userID, deviceID]) > 0
    }

    @discardableResult
    public func removeAll(tenantID: String, userID: String) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM push_devices WHERE tenant_id = ? AND user_id = ?", arguments: [tenantID, userID])
            return db.changesCount
        }
    }

    /// A device row read with ``columns`` (also from a join that names them so).
    static func stored(_ row: Row) -> StoredDeviceRow {
        StoredDeviceRow(
            id: row["device_id"], userID: row["user_id"], provider: row["provider"], tokenSealed: row["token_sealed"],
            platform: row["platform"], locale: row["locale"], appVersion: row["app_version"],
            apnsEnvironment: row["apns_environment"], createdAtMS: row["created_at_ms"], updatedAtMS: row["updated_at_ms"])
    }
}
