import Foundation
import GRDB
import GatewayCore

/// ``ClientConsentStore`` in `auth_client_consents`: one row per allowed scope.
extension SQLiteAuthStore {
    public func grantedScopes(tenantID: String, subject: String, clientID: String) async throws -> Set<String> {
        try await pool.read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: "SELECT scope FROM auth_client_consents WHERE tenant_id = ? AND subject = ? AND client_id = ?",
                    arguments: [tenantID, subject, clientID]))
        }
    }

    public func grant(_ scopes: Set<String>, tenantID: String, subject: String, clientID: String, at: Date) async throws
    {
        let now = StoreClock.milliseconds(at)
        try await pool.write { db in
            for scope in scopes.sorted() {
                try db.execute(
                    sql: """
                        INSERT INTO auth_client_consents (tenant_id, subject, client_id, scope, granted_at_ms)
                        VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                        """, arguments: [tenantID, subject, clientID, scope, now])
            }
        }
    }
}
