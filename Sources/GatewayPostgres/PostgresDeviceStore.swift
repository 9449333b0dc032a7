import GatewayCore
import PostgresNIO

/// ``DeviceStore`` on PostgreSQL (`push_devices`). A registration locks the token's row
/// (`FOR UPDATE`) in one transaction and moves it in place; two first registrations of one
/// token at once meet at the unique fingerprint, and the loser runs again and finds the row.
public final class PostgresDeviceStore: DeviceStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    private typealias Columns = (String, String, String, String, String, String?, String?, String?, Int64, Int64)

    /// A concurrent first registration of the same token won; run again.
    private struct LostRace: Error {}

    public func register(_ device: PushDevice, maxPerUser: Int) async throws -> DeviceRegistration {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await registerOnce(device, maxPerUser: maxPerUser)
            } catch is LostRace where attempt < 3 {
                continue
            }
        }
    }

    private func registerOnce(_ device: PushDevice, maxPerUser: Int) async throws -> DeviceRegistration {
        let sealer = database.sealer
        let fingerprint = StoredDeviceRow.fingerprint(of: device, sealer: sealer)
        let fresh = try StoredDeviceRow(device, sealer: sealer)
        let (tenantID, userID) = (device.tenantID, device.userID)
        let (row, held, dropped) = try await database.transaction { connection in
            let held = try await connection.first(
                """
                SELECT device_id, user_id, provider, token_sealed, platform, locale, app_version, apns_environment,
                    created_at_ms, updated_at_ms
                FROM push_devices WHERE tenant_id = \(tenantID) AND provider = \(fresh.provider)
                    AND token_fingerprint = \(fingerprint) FOR UPDATE
                """, as: Columns.self
            ).map(Self.stored)
            var row = fresh
            if let held, held.userID == userID {
                row.id = held.id
                row.tokenSealed = held.tokenSealed
                row.createdAtMS = held.createdAtMS
                try await connection.execute(
                    """
                    UPDATE push_devices SET platform = \(row.platform), locale = \(row.locale), app_version = \(row.appVersion),
                        apns_environment = \(row.apnsEnvironment), updated_at_ms = \(row.updatedAtMS)
                    WHERE tenant_id = \(tenantID) AND device_id = \(row.id)
                    """)
            } else if let held {
                // Moved: the row changes hands in place, so a racer waiting on its lock sees it.
                try await connection.execute(
                    """
                    UPDATE push_devices SET device_id = \(row.id), user_id = \(row.userID), token_sealed = \(row.tokenSealed),
                        platform = \(row.platform), locale = \(row.locale), app_version = \(row.appVersion),
                        apns_environment = \(row.apnsEnvironment), created_at_ms = \(row.createdAtMS),
                        updated_at_ms = \(row.updatedAtMS)
                    WHERE tenant_id = \(tenantID) AND device_id = \(held.id)
                    """)
            } else {
                let inserted = try await connection.execute(
                    """
                    INSERT INTO push_devices (tenant_id, token_fingerprint, device_id, user_id, provider, token_sealed,
                        platform, locale, app_version, apns_environment, created_at_ms, updated_at_ms)
                    VALUES (\(tenantID), \(fingerprint), \(row.id), \(row.userID), \(row.provider), \(row.tokenSealed),
                        \(row.platform), \(row.locale), \(row.appVersion), \(row.apnsEnvironment), \(row.createdAtMS),
                        \(row.updatedAtMS))
                    ON CONFLICT (tenant_id, provider, token_fingerprint) DO NOTHING RETURNING 1
                    """)
                if inserted == 0 { throw LostRace() }
            }
            // The newest registrations stay; this one first, whatever the clock says.
            let dropped = try await connection.execute(
                """
                DELETE FROM push_devices WHERE tenant_id = \(tenantID) AND device_id IN (
                    SELECT device_id FROM push_devices WHERE tenant_id = \(tenantID) AND user_id = \(userID)
                    ORDER BY device_id = \(row.id) DESC, updated_at_ms DESC, created_at_ms DESC, device_id COLLATE "C"
                    OFFSET \(maxPerUser))
                RETURNING 1
                """)
            return (row, held, dropped)
        }
        let moved = held.map { $0.userID != userID } ?? false
        return DeviceRegistration(
            device: try row.device(tenantID: tenantID, sealer: sealer), created: held == nil || moved,
            movedFromOtherUser: moved, dropped: dropped)
    }

    public func devices(tenantID: String, userID: String) async throws -> [PushDevice] {
        try await database.pool.all(
            """
            SELECT device_id, user_id, provider, token_sealed, platform, locale, app_version, apns_environment,
                created_at_ms, updated_at_ms
            FROM push_devices WHERE tenant_id = \(tenantID) AND user_id = \(userID)
            ORDER BY updated_at_ms DESC, device_id COLLATE "C"
            """, as: Columns.self
        ).map { try Self.stored($0).device(tenantID: tenantID, sealer: database.sealer) }
    }

    public func remove(tenantID: String, userID: String, deviceID: String) async throws -> Bool {
        try await database.pool.execute(
            """
            DELETE FROM push_devices WHERE tenant_id = \(tenantID) AND user_id = \(userID) AND device_id = \(deviceID)
            RETURNING 1
            """) > 0
    }

    public func setSignInRequests(_ enabled: Bool, tenantID: String, userID: String, deviceID: String) async throws
        -> Bool
    {
        try await database.pool.execute(
            """
            UPDATE push_devices SET sign_in_requests = \(enabled)
            WHERE tenant_id = \(tenantID) AND user_id = \(userID) AND device_id = \(deviceID) RETURNING 1
            """) > 0
    }

    @discardableResult
    public func removeAll(tenantID: String, userID: String) async throws -> Int {
        try await database.pool.execute(
            "DELETE FROM push_devices WHERE tenant_id = \(tenantID) AND user_id = \(userID) RETURNING 1")
    }

    private static func stored(_ c: Columns) -> StoredDeviceRow {
        StoredDeviceRow(
            id: c.0, userID: c.1, provider: c.2, tokenSealed: c.3, platform: c.4, locale: c.5, appVersion: c.6,
            apnsEnvironment: c.7, createdAtMS: c.8, updatedAtMS: c.9)
    }
}
