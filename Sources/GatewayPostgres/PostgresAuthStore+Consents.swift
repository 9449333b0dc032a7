import Foundation
import GatewayCore
import PostgresNIO

/// ``ClientConsentStore`` in `auth_client_consents`: one row per allowed scope.
extension PostgresAuthStore {
    public func grantedScopes(tenantID: String, subject: String, clientID: String) async throws -> Set<String> {
        Set(
            try await client.column(
                """
                SELECT scope FROM auth_client_consents
                WHERE tenant_id = \(tenantID) AND subject = \(subject) AND client_id = \(clientID)
                """, as: String.self))
    }

    public func grant(_ scopes: Set<String>, tenantID: String, subject: String, clientID: String, at: Date) async throws
    {
        let now = StoreClock.milliseconds(at)
        let sorted = scopes.sorted()
        try await client.execute(
            """
            INSERT INTO auth_client_consents (tenant_id, subject, client_id, scope, granted_at_ms)
            SELECT \(tenantID), \(subject), \(clientID), scope, \(now) FROM unnest(\(sorted)::text[]) AS scope
            ON CONFLICT DO NOTHING
            """)
    }
}
