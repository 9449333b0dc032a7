import Foundation
import GatewayCore
import PostgresNIO

/// Refresh families on PostgreSQL. Rotation locks the family row (`FOR UPDATE`) before it
/// reads the presented token's state, so when several processes present one token at
/// once, exactly one rotates it and the others see it rotated (reuse: the family is revoked).
extension PostgresAuthStore {
    /// A family's columns in ``family(_:)``'s order (also what ``NewFamilyStatement`` inserts).
    static let familyColumns =
        "family_id, tenant_id, client_id, subject, scope, nonce, dpop_jkt, revoked, created_at_ms, absolute_expiry_ms, session_id, auth_time_ms"
    /// ``familyColumns``, each qualified by the alias `f`.
    private static let familyColumnsOfF = familyColumns.split(separator: ",")
        .map { "f." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
    private typealias FamilyRow = (
        String, String, String, String, String, String?, String?, Bool, Int64, Int64, String?, Int64?
    )

    private static func family(_ r: FamilyRow) -> RefreshFamily {
        RefreshFamily(
            familyID: r.0, tenantID: r.1, clientID: r.2, subject: r.3, scope: r.4, nonce: r.5, dpopJKT: r.6,
            revoked: r.7,
            createdAt: StoreClock.date(r.8), absoluteExpiry: StoreClock.date(r.9), sessionID: r.10,
            authTime: r.11.map { $0 / 1000 })
    }

    /// The family's user from a row's LEFT JOINed user columns (username, name, email, picture,
    /// disabled, password_hash, totp_secret_sealed): nil when no user has the family's subject.
    /// Its revision is not read (0): a refresh needs the claims, never the ETag.
    private func joinedUser(
        of family: RefreshFamily, _ c: (String?, String?, String?, String?, Bool?, String?, String?)
    ) throws -> LocalUser? {
        guard let username = c.0, let disabled = c.4, let passwordHash = c.5 else { return nil }
        // Nor the phone and the verified flags: no claim carries them yet.
        return try user((family.tenantID, username, family.subject, c.1, c.2, c.3, disabled, passwordHash, c.6, 0, nil, 0))
    }

    public func createFamily(
        _ f: RefreshFamily, tokenHash: String, idleExpiry: Date, accessToken: IssuedAccessToken?
    ) async throws -> LocalUser? {
        // One statement, so one implicit transaction: the family never exists without its token
        // (nor the access token's record without its family).
        try await client.first(
            NewFamilyStatement(
                family: f, tokenHash: tokenHash, idleExpiryMS: StoreClock.milliseconds(idleExpiry),
                accessToken: accessToken)
        ).map(user)
    }

    /// One round trip: `gateway_rotate_refresh_checked` (migration `v20-checked-refresh-rotation`)
    /// locks the family, then reads the token's state, and rotates or revokes; the same
    /// statement records the access token of a rotation. One implicit transaction.
    public func rotate(
        tokenHash: String, tenantID: String, clientID: String, newHash: String, now: Date, idleExpiry: Date,
        accessToken: IssuedAccessToken?
    ) async throws -> RefreshRotation {
        let step = try await rotation(
            tokenHash: tokenHash, tenantID: tenantID, clientID: clientID, newHash: newHash, now: now,
            idleExpiry: idleExpiry, accessToken: accessToken, checking: nil)
        guard case .rotation(let outcome, _) = step else { return .invalid }  // never held unchecked
        return outcome
    }

    /// One round trip, the family's conditions checked under its lock (issue 32: a refresh
    /// was a read, then the rotation).
    public func rotateChecked(
        tokenHash: String, tenantID: String, clientID: String, newHash: String, now: Date, idleExpiry: Date,
        accessToken: IssuedAccessToken?, presentedDPoPJKT: String?
    ) async throws -> CheckedRefreshRotation {
        try await rotation(
            tokenHash: tokenHash, tenantID: tenantID, clientID: clientID, newHash: newHash, now: now,
            idleExpiry: idleExpiry, accessToken: accessToken, checking: .some(presentedDPoPJKT))
    }

    /// - Parameter checking: nil rotates unchecked; else the presented DPoP key (itself
    ///   optional) against which the family's conditions are checked first.
    private func rotation(
        tokenHash: String, tenantID: String, clientID: String, newHash: String, now: Date, idleExpiry: Date,
        accessToken: IssuedAccessToken?, checking: String??
    ) async throws -> CheckedRefreshRotation {
        let nowMS = StoreClock.milliseconds(now)
        let statement = RefreshRotationStatement(
            tokenHash: tokenHash, tenantID: tenantID, clientID: clientID, newHash: newHash, nowMS: nowMS,
            idleExpiryMS: StoreClock.milliseconds(idleExpiry), check: checking != nil,
            presentedDPoPJKT: checking ?? nil, jti: accessToken?.jti,
            expiresAtMS: accessToken.map { StoreClock.milliseconds($0.expiresAt) })
        guard let row = try await client.first(statement) else { return .rotation(.invalid, user: nil) }
        let family = Self.family(
            (row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11, row.12))
        let user = try joinedUser(of: family, (row.13, row.14, row.15, row.16, row.17, row.18, row.19))
        switch row.0 {
        case "held": return .held(family, user: user)
        case "rotated": return .rotation(.rotated(family), user: user)
        default:  // "reused"
            // Reused: the family is now revoked; name its unexpired access tokens.
            let tokens = try await client.all("""
                SELECT jti, expires_at_ms FROM auth_family_access_tokens
                WHERE family_id = \(family.familyID) AND expires_at_ms > \(nowMS)
                """, as: (String, Int64).self).map { (jti: $0.0, expiresAt: StoreClock.date($0.1)) }
            return .rotation(.reused(family: family, accessTokens: tokens), user: user)
        }
    }

    public func recordAccessToken(familyID: String, jti: String, expiresAt: Date) async throws {
        try await client.execute("""
            WITH expired AS (DELETE FROM auth_family_access_tokens WHERE family_id = \(familyID) AND expires_at_ms < \(StoreClock.milliseconds(Date())))
            INSERT INTO auth_family_access_tokens (family_id, jti, expires_at_ms) VALUES (\(familyID), \(jti), \(StoreClock.milliseconds(expiresAt)))
            """)
    }

    public func family(ofTokenHash tokenHash: String) async throws -> RefreshFamily? {
        try await client.first("""
            SELECT \(unescaped: Self.familyColumns) FROM auth_refresh_families
            WHERE family_id = (SELECT family_id FROM auth_refresh_tokens WHERE token_hash = \(tokenHash))
            """, as: FamilyRow.self).map(Self.family)
    }

    public func familyWithUser(ofTokenHash tokenHash: String) async throws -> (family: RefreshFamily, user: LocalUser?)? {
        guard
            let r = try await client.first(
                """
                SELECT \(unescaped: Self.familyColumnsOfF),
                       u.username, u.name, u.email, u.picture, u.disabled, u.password_hash, u.totp_secret_sealed
                FROM auth_refresh_families f
                LEFT JOIN auth_users u ON u.tenant_id = f.tenant_id AND u.subject = f.subject
                WHERE f.family_id = (SELECT family_id FROM auth_refresh_tokens WHERE token_hash = \(tokenHash))
                """,
                as: (
                    String, String, String, String, String, String?, String?, Bool, Int64, Int64, String?, Int64?,
                    String?, String?, String?, String?, Bool?, String?, String?
                ).self)
        else { return nil }
        let family = Self.family((r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8, r.9, r.10, r.11))
        return (family, try joinedUser(of: family, (r.12, r.13, r.14, r.15, r.16, r.17, r.18)))
    }

    public func liveFamilies(tenantID: String, subject: String, now: Date, limit: Int) async throws -> [RefreshFamily] {
        let now = StoreClock.milliseconds(now)
        return try await client.all(
            """
            SELECT \(unescaped: Self.familyColumnsOfF) FROM auth_refresh_families f
            WHERE f.tenant_id = \(tenantID) AND f.subject = \(subject) AND NOT f.revoked AND f.absolute_expiry_ms > \(now)
                AND EXISTS (SELECT 1 FROM auth_refresh_tokens t
                    WHERE t.family_id = f.family_id AND t.state = 'active' AND t.idle_expiry_ms > \(now))
            ORDER BY f.created_at_ms DESC, f.family_id COLLATE "C" LIMIT \(limit)
            """, as: FamilyRow.self
        ).map(Self.family)
    }

    public func revokeFamily(_ familyID: String, now: Date) async throws -> [(jti: String, expiresAt: Date)] {
        try await database.transaction { connection in try await Self.revoke(connection, familyID: familyID, now: now) }
    }

    public func revokeFamilies(
        _ selection: RefreshFamilySelection, now: Date
    ) async throws -> [(jti: String, expiresAt: Date)] {
        try await database.transaction { connection in
            let ids: [String] =
                switch selection {
                case .subject(let tenantID, let subject):
                    try await connection.column(
                        """
                        SELECT family_id FROM auth_refresh_families WHERE tenant_id = \(tenantID) AND subject = \(subject) AND NOT revoked FOR UPDATE
                        """, as: String.self)
                case .session(let tenantID, let subject, let sessionID):
                    try await connection.column(
                        """
                        SELECT family_id FROM auth_refresh_families
                        WHERE tenant_id = \(tenantID) AND subject = \(subject) AND session_id = \(sessionID) AND NOT revoked FOR UPDATE
                        """, as: String.self)
                case .client(let tenantID, let subject, let clientID):
                    try await connection.column(
                        """
                        SELECT family_id FROM auth_refresh_families
                        WHERE tenant_id = \(tenantID) AND subject = \(subject) AND client_id = \(clientID) AND NOT revoked FOR UPDATE
                        """, as: String.self)
                case .family(let tenantID, let subject, let familyID):
                    try await connection.column(
                        """
                        SELECT family_id FROM auth_refresh_families
                        WHERE tenant_id = \(tenantID) AND subject = \(subject) AND family_id = \(familyID) AND NOT revoked FOR UPDATE
                        """, as: String.self)
                }
            var tokens: [(jti: String, expiresAt: Date)] = []
            for id in ids { tokens += try await Self.revoke(connection, familyID: id, now: now) }
            return tokens
        }
    }

    private static func revoke(
        _ connection: PostgresConnection, familyID: String, now: Date
    ) async throws -> [(jti: String, expiresAt: Date)] {
        try await connection.execute("UPDATE auth_refresh_families SET revoked = true WHERE family_id = \(familyID)")
        try await connection.execute("UPDATE auth_refresh_tokens SET state = 'revoked' WHERE family_id = \(familyID)")
        return try await connection.all("""
            SELECT jti, expires_at_ms FROM auth_family_access_tokens WHERE family_id = \(familyID) AND expires_at_ms > \(StoreClock.milliseconds(now))
            """, as: (String, Int64).self).map { (jti: $0.0, expiresAt: StoreClock.date($0.1)) }
    }

    public func purgeRefreshState(now: Date, limit: Int) async throws -> RefreshPurge {
        let now = StoreClock.milliseconds(now)
        let accessTokens = try await client.execute("""
            DELETE FROM auth_family_access_tokens WHERE ctid IN
                (SELECT ctid FROM auth_family_access_tokens WHERE expires_at_ms < \(now) LIMIT \(limit)) RETURNING 1
            """)
        // SKIP LOCKED: replicas purging at once share the work, and a family being rotated
        // right now is left for the next round. Refresh tokens go with it (ON DELETE CASCADE).
        let families = try await client.execute("""
            DELETE FROM auth_refresh_families WHERE family_id IN (
                SELECT f.family_id FROM auth_refresh_families f WHERE (f.absolute_expiry_ms < \(now) OR f.revoked)
                AND NOT EXISTS (SELECT 1 FROM auth_family_access_tokens a WHERE a.family_id = f.family_id AND a.expires_at_ms >= \(now))
                LIMIT \(limit) FOR UPDATE SKIP LOCKED) RETURNING 1
            """)
        return RefreshPurge(families: families, accessTokens: accessTokens)
    }
}
