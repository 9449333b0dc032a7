import GatewayCore
import PostgresNIO

// The token endpoint's statements, as named prepared statements: each pooled connection
// parses and plans them once, then only binds and runs them.

/// A refresh's one statement (`gateway_rotate_refresh_checked` and the access-token record).
/// Issue 32: unprepared, planning alone cost PostgreSQL 0.14 ms of the statement's 0.45 ms, on
/// the cores it shares with the gateway.
struct RefreshRotationStatement: PostgresPreparedStatement {
    static let name = "gateway_refresh_rotation_v20"
    static let sql = """
        WITH r AS (SELECT * FROM gateway_rotate_refresh_checked($1, $2, $3, $4, $5, $6, $7, $8)),
        expired AS (
            DELETE FROM auth_family_access_tokens a USING r
            WHERE r.out_outcome = 'rotated' AND $9::TEXT IS NOT NULL
                AND a.family_id = r.out_family_id AND a.expires_at_ms < $5),
        recorded AS (
            INSERT INTO auth_family_access_tokens (family_id, jti, expires_at_ms)
            SELECT out_family_id, $9, $10 FROM r WHERE out_outcome = 'rotated' AND $9::TEXT IS NOT NULL)
        SELECT * FROM r
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .text, .text, .text, .text, .int8, .int8, .bool, .text, .text, .int8,
    ]

    /// The outcome ('held', 'rotated', 'reused'; no row: invalid), the family's columns and its user's.
    typealias Row = (
        String, String, String, String, String, String, String?, String?, Bool, Int64, Int64, String?,
        Int64?, String?, String?, String?, String?, Bool?, String?, String?
    )

    var tokenHash: String
    var tenantID: String
    var clientID: String
    var newHash: String
    var nowMS: Int64
    var idleExpiryMS: Int64
    /// Whether the family's conditions are checked first (against ``presentedDPoPJKT``).
    var check: Bool
    var presentedDPoPJKT: String?
    /// The access token a rotation records, and its expiry.
    var jti: String?
    var expiresAtMS: Int64?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 10)
        bindings.append(tokenHash)
        bindings.append(tenantID)
        bindings.append(clientID)
        bindings.append(newHash)
        bindings.append(nowMS)
        bindings.append(idleExpiryMS)
        bindings.append(check)
        bindings.append(presentedDPoPJKT)
        bindings.append(jti)
        bindings.append(expiresAtMS)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// A code exchange's one statement: the family, its first token and (when given) the access
/// token's record, then the family's user, in one implicit transaction (the data-modifying
/// parts run to completion whether or not the query reads them).
struct NewFamilyStatement: PostgresPreparedStatement {
    static let name = "gateway_new_refresh_family_v20"
    static let sql = """
        WITH family AS (
            INSERT INTO auth_refresh_families (\(PostgresAuthStore.familyColumns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
            RETURNING family_id),
        token AS (
            INSERT INTO auth_refresh_tokens (token_hash, family_id, state, idle_expiry_ms)
            SELECT $13, family_id, 'active', $14 FROM family),
        recorded AS (
            INSERT INTO auth_family_access_tokens (family_id, jti, expires_at_ms)
            SELECT family_id, $15, $16 FROM family WHERE $15::TEXT IS NOT NULL)
        SELECT \(PostgresAuthStore.userColumns) FROM auth_users WHERE tenant_id = $2 AND subject = $4
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .text, .text, .text, .text, .text, .text, .text, .bool, .int8, .int8, .text, .int8, .text, .int8, .text, .int8,
    ]

    typealias Row = PostgresAuthStore.UserRow

    /// Bound in ``PostgresAuthStore/familyColumns``' order.
    var family: RefreshFamily
    var tokenHash: String
    var idleExpiryMS: Int64
    var accessToken: IssuedAccessToken?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 16)
        bindings.append(family.familyID)
        bindings.append(family.tenantID)
        bindings.append(family.clientID)
        bindings.append(family.subject)
        bindings.append(family.scope)
        bindings.append(family.nonce)
        bindings.append(family.dpopJKT)
        bindings.append(family.revoked)
        bindings.append(StoreClock.milliseconds(family.createdAt))
        bindings.append(StoreClock.milliseconds(family.absoluteExpiry))
        bindings.append(family.sessionID)
        bindings.append(family.authTime.map { $0 * 1000 })
        bindings.append(tokenHash)
        bindings.append(idleExpiryMS)
        bindings.append(accessToken?.jti)
        bindings.append(accessToken.map { StoreClock.milliseconds($0.expiresAt) })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}
