import Crypto
import Foundation
import GatewayCore
import GRDB

/// The auth stores on the tenant database file (same `DatabasePool` as ``SQLiteTenantStore``).
/// Private signing keys are sealed with the master key; client secrets, passwords and
/// refresh tokens are stored as hashes only.
public final class SQLiteAuthStore: AuthStore {
    let pool: DatabasePool
    let sealer: SecretSealer
    private let documents = ClientDocuments()

    /// Shares the pool and sealer of `tenants` (migrations already applied by it).
    public init(tenants: SQLiteTenantStore) {
        self.pool = tenants.pool
        self.sealer = tenants.sealer
    }

    // MARK: signing keys

    public func signingKeys(tenantID: String) async throws -> [SigningKey] {
        let sealer = self.sealer
        // The closure returns Sendable values: with `[Row]` Swift would pick GRDB's blocking
        // `read`, which parks a cooperative thread until a reader is free — and under load
        // every cooperative thread ends up parked there, waiting for readers that only a
        // cooperative thread can release (a deadlock).
        let rows = try await pool.read { db in try Self.signingKeyRows(db, tenantID: tenantID) }
        return try rows.map { try $0.key(tenantID: tenantID, sealer: sealer) }
    }

    /// One stored signing key, still sealed.
    struct SigningKeyRow: Sendable {
        var kid: String
        var state: String
        var sealed: String
        var createdAt: Int64
        var schedule: SigningKey.Schedule.Stored

        func key(tenantID: String, sealer: SecretSealer) throws -> SigningKey {
            let pem = try sealer.open(sealed, context: SigningKey.sealingContext(tenantID: tenantID, kid: kid))
            return try SigningKey(
                tenantID: tenantID, kid: kid, state: SigningKey.State(rawValue: state) ?? .retired,
                createdAt: StoreClock.date(createdAt),
                schedule: SigningKey.Schedule(stored: schedule, createdAtMS: createdAt), pem: pem)
        }
    }

    private static func signingKeyRows(_ db: Database, tenantID: String) throws -> [SigningKeyRow] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM auth_signing_keys WHERE tenant_id = ? ORDER BY created_at_ms DESC, rowid DESC",
            arguments: [tenantID]
        )
        .map {
            SigningKeyRow(
                kid: $0["kid"], state: $0["state"], sealed: $0["private_key_sealed"], createdAt: $0["created_at_ms"],
                schedule: ($0["sign_from_ms"], $0["sign_until_ms"], $0["unpublish_at_ms"]))
        }
    }

    public func addSigningKey(_ key: SigningKey, trail: AuditDraft?) async throws {
        let sealed = try sealer.seal(
            key.pemRepresentation, context: SigningKey.sealingContext(tenantID: key.tenantID, kid: key.kid))
        try await pool.write { db in
            try Self.insert(key, sealed: sealed, db)
            if let trail { _ = try SQLiteAuditTrail.append(trail, in: db) }
        }
    }

    public func addFirstSigningKey(_ key: SigningKey, now: Date) async throws -> Bool {
        let sealer = self.sealer
        let sealed = try sealer.seal(
            key.pemRepresentation, context: SigningKey.sealingContext(tenantID: key.tenantID, kid: key.kid))
        // The writer is one at a time: no other replica adds a key between the read and the insert.
        return try await pool.write { db in
            let keys = try Self.signingKeyRows(db, tenantID: key.tenantID).map {
                try $0.key(tenantID: key.tenantID, sealer: sealer)
            }
            guard TenantKeys(keys).signer(key.algorithm, at: now) == nil else { return false }
            try Self.insert(key, sealed: sealed, db)
            return true
        }
    }

    private static func insert(_ key: SigningKey, sealed: String, _ db: Database) throws {
        let schedule = key.schedule.stored
        try db.execute(
            sql: """
                INSERT INTO auth_signing_keys (kid, tenant_id, state, private_key_sealed, created_at_ms,
                    sign_from_ms, sign_until_ms, unpublish_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                key.kid, key.tenantID, key.state.rawValue, sealed, StoreClock.milliseconds(key.createdAt),
                schedule.signFrom, schedule.signUntil, schedule.unpublishAt,
            ])
        try SQLiteTenantStore.bumpChangeCounter(db, tenants: [key.tenantID])
    }

    public func scheduleSigningKeys(
        tenantID: String, trail: (@Sendable ([SigningKey], [String: SigningKey.Schedule]) -> AuditDraft)?,
        _ plan: @escaping @Sendable ([SigningKey]) throws -> [String: SigningKey.Schedule]
    ) async throws -> [String: SigningKey.Schedule] {
        let sealer = self.sealer
        // The writer is one at a time: the plan reads the keys no other writer changes meanwhile.
        return try await pool.write { db in
            let keys = try Self.signingKeyRows(db, tenantID: tenantID).map { try $0.key(tenantID: tenantID, sealer: sealer) }
            let schedules = try plan(keys)
            guard !schedules.isEmpty else { return schedules }
            for (kid, schedule) in schedules.sorted(by: { $0.key < $1.key }) {
                let stored = schedule.stored
                try db.execute(
                    sql: """
                        UPDATE auth_signing_keys SET sign_from_ms = ?, sign_until_ms = ?, unpublish_at_ms = ?
                        WHERE tenant_id = ? AND kid = ?
                        """,
                    arguments: [stored.signFrom, stored.signUntil, stored.unpublishAt, tenantID, kid])
                if db.changesCount == 0 { throw AuthStoreError.notFound("signing key \(kid)") }
            }
            try SQLiteTenantStore.bumpChangeCounter(db, tenants: [tenantID])
            if let trail { _ = try SQLiteAuditTrail.append(trail(keys, schedules), in: db) }
            return schedules
        }
    }

    // MARK: clients

    public func client(tenantID: String, clientID: String) async throws -> OAuthClient? {
        let doc = try await pool.read { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT document FROM auth_clients WHERE tenant_id = ? AND client_id = ?"),
                arguments: [tenantID, clientID])
        }
        return try doc.map(documents.client)
    }

    public func clients(tenantID: String) async throws -> [OAuthClient] {
        let docs = try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT document FROM auth_clients WHERE tenant_id = ? ORDER BY client_id",
                arguments: [tenantID])
        }
        return try docs.map { try JSONDecoder().decode(OAuthClient.self, from: Data($0.utf8)) }
    }

    public func addClients(_ clients: [NewClient], trail: (@Sendable (OAuthClient) -> AuditDraft)?) async throws {
        let rows = try clients.map { entry in
            let stored = try ClientRevision.first(entry.client)
            return (stored, entry.secretHash, String(decoding: try JSONEncoder().encode(stored), as: UTF8.self))
        }
        let now = StoreClock.milliseconds(Date())
        try await pool.write { db in
            for (client, secretHash, doc) in rows {
                if try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM auth_clients WHERE tenant_id = ? AND client_id = ?",
                    arguments: [client.tenantID, client.clientID]) == true
                {
                    throw AuthStoreError.alreadyExists("client \(client.clientID)")
                }
                try db.execute(
                    sql:
                        "INSERT INTO auth_clients (tenant_id, client_id, document, secret_hash, created_at_ms) VALUES (?, ?, ?, ?, ?)",
                    arguments: [client.tenantID, client.clientID, doc, secretHash, now])
                if let trail { _ = try SQLiteAuditTrail.append(trail(client), in: db) }
            }
        }
    }

    @discardableResult
    public func writeClient(
        tenantID: String, clientID: String, trail: (@Sendable (OAuthClient, OAuthClient?) -> AuditDraft)?,
        _ change: @Sendable (OAuthClient) throws -> OAuthClient?
    ) async throws -> OAuthClient? {
        try await pool.write { db in
            guard
                let doc = try String.fetchOne(
                    db, sql: "SELECT document FROM auth_clients WHERE tenant_id = ? AND client_id = ?",
                    arguments: [tenantID, clientID])
            else { throw AuthStoreError.notFound("client \(clientID)") }
            let old = try JSONDecoder().decode(OAuthClient.self, from: Data(doc.utf8))
            let new = try change(old).map { try ClientRevision.next(after: old, $0) }
            if let new {
                try db.execute(
                    sql: "UPDATE auth_clients SET document = ? WHERE tenant_id = ? AND client_id = ?",
                    arguments: [String(decoding: try JSONEncoder().encode(new), as: UTF8.self), tenantID, clientID])
            } else {
                try db.execute(
                    sql: "DELETE FROM auth_clients WHERE tenant_id = ? AND client_id = ?", arguments: [tenantID, clientID])
            }
            if let trail { _ = try SQLiteAuditTrail.append(trail(old, new), in: db) }
            return new
        }
    }

    public func clientSecretHash(tenantID: String, clientID: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT secret_hash FROM auth_clients WHERE tenant_id = ? AND client_id = ?",
                arguments: [tenantID, clientID])
        }
    }

    // MARK: users

    static func user(_ row: Row, sealer: SecretSealer) throws -> LocalUser {
        let tenantID: String = row["tenant_id"], subject: String = row["subject"]
        let totp = try (row["totp_secret_sealed"] as String?).map {
            SecretValue(
                try sealer.open($0, context: LocalUser.totpSealingContext(tenantID: tenantID, subject: subject)))
        }
        var user = LocalUser(
            tenantID: tenantID, username: row["username"], subject: subject, name: row["name"], email: row["email"],
            phone: row["phone"], picture: row["picture"], disabled: row["disabled"], passwordHash: row["password_hash"], totpSecret: totp,
            revision: row["revision"])
        user.setVerified(bits: row["verified"] ?? 0)
        return user
    }

    func sealedTOTP(_ user: LocalUser) throws -> String? {
        try user.totpSecret.map {
            try sealer.seal(
                $0.plaintext, context: LocalUser.totpSealingContext(tenantID: user.tenantID, subject: user.subject))
        }
    }

    public func user(tenantID: String, username: String) async throws -> LocalUser? {
        let sealer = self.sealer
        return try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM auth_users WHERE tenant_id = ? AND username = ?",
                arguments: [tenantID, username]
            ).map { try Self.user($0, sealer: sealer) }
        }
    }

    public func user(tenantID: String, subject: String) async throws -> LocalUser? {
        let sealer = self.sealer
        return try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM auth_users WHERE tenant_id = ? AND subject = ?"),
                arguments: [tenantID, subject]
            ).map { try Self.user($0, sealer: sealer) }
        }
    }

    public func users(tenantID: String) async throws -> [LocalUser] {
        let sealer = self.sealer
        return try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM auth_users WHERE tenant_id = ? ORDER BY username", arguments: [tenantID]
            ).map { try Self.user($0, sealer: sealer) }
        }
    }

    public func users(tenantID: String, email: String, limit: Int) async throws -> [LocalUser] {
        let sealer = self.sealer
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT * FROM auth_users WHERE tenant_id = ? AND lower(email) = lower(?) ORDER BY username LIMIT ?",
                arguments: [tenantID, email, limit]
            ).map { try Self.user($0, sealer: sealer) }
        }
    }

    public func users(tenantID: String, phone: String, limit: Int) async throws -> [LocalUser] {
        let sealer = self.sealer
        return try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM auth_users WHERE tenant_id = ? AND phone = ? ORDER BY username LIMIT ?",
                arguments: [tenantID, phone, limit]
            ).map { try Self.user($0, sealer: sealer) }
        }
    }

    public func users(tenantID: String, after: String?, limit: Int, disabled: Bool?) async throws -> [LocalUser] {
        let sealer = self.sealer
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM auth_users WHERE tenant_id = ? AND username > ? AND (? IS NULL OR disabled = ?)
                    ORDER BY username LIMIT ?
                    """,
                arguments: [tenantID, after ?? "", disabled, disabled, limit]
            ).map { try Self.user($0, sealer: sealer) }
        }
    }

    public func addUsers(_ users: [LocalUser], trail: (@Sendable (LocalUser) -> AuditDraft)?) async throws {
        let rows = try users.map { ($0, try sealedTOTP($0)) }
        let now = StoreClock.milliseconds(Date())
        try await pool.write { db in
            for (user, totp) in rows { try Self.insert(user, sealedTOTP: totp, at: now, trail: trail, in: db) }
        }
    }

    /// Inserts a new user (and its audit record) on the caller's transaction; `alreadyExists`
    /// for a taken username or subject.
    static func insert(
        _ user: LocalUser, sealedTOTP totp: String?, at now: Int64, trail: (@Sendable (LocalUser) -> AuditDraft)?,
        in db: Database
    ) throws {
        if try Bool.fetchOne(
            db, sql: "SELECT 1 FROM auth_users WHERE tenant_id = ? AND username = ?",
            arguments: [user.tenantID, user.username]) == true
        {
            throw AuthStoreError.alreadyExists("user \(user.username)")
        }
        do {
            try db.execute(
                sql: """
                    INSERT INTO auth_users (tenant_id, username, subject, password_hash, name, email, phone, picture, disabled, totp_secret_sealed, created_at_ms, revision, verified)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
                    """,
                arguments: [
                    user.tenantID, user.username, user.subject, user.passwordHash, user.name, user.email, user.phone,
                    user.picture, user.disabled, totp, now, user.verifiedBits,
                ])
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // The other unique key: (tenant, subject).
            throw AuthStoreError.alreadyExists("user with subject \(user.subject)")
        }
        var stored = user
        stored.revision = 1
        if let trail { _ = try SQLiteAuditTrail.append(trail(stored), in: db) }
    }

    public func writeUser(
        tenantID: String, username: String, trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?,
        _ change: @escaping @Sendable (LocalUser) throws -> LocalUser
    ) async throws -> LocalUser {
        let sealer = self.sealer
        return try await pool.write { db in
            try Self.writeUser(db, tenantID: tenantID, username: username, sealer: sealer, trail: trail, change)
        }
    }

    /// ``writeUser(tenantID:username:trail:_:)`` inside the caller's write transaction.
    static func writeUser(
        _ db: Database, tenantID: String, username: String, sealer: SecretSealer,
        trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?, _ change: (LocalUser) throws -> LocalUser
    ) throws -> LocalUser {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM auth_users WHERE tenant_id = ? AND username = ?", arguments: [tenantID, username])
        else { throw AuthStoreError.notFound("user \(username)") }
        let old = try Self.user(row, sealer: sealer)
        var new = try change(old)
        (new.tenantID, new.username, new.subject, new.revision) = (old.tenantID, old.username, old.subject, old.revision + 1)
        let totp = try new.totpSecret.map {
            try sealer.seal($0.plaintext, context: LocalUser.totpSealingContext(tenantID: tenantID, subject: old.subject))
        }
        try db.execute(
            sql: """
                UPDATE auth_users SET password_hash = ?, name = ?, email = ?, phone = ?, picture = ?, disabled = ?,
                    totp_secret_sealed = ?, revision = ?, verified = ? WHERE tenant_id = ? AND username = ?
                """,
            arguments: [
                new.passwordHash, new.name, new.email, new.phone, new.picture, new.disabled, totp, new.revision,
                new.verifiedBits, tenantID, username,
            ])
        if let trail { _ = try SQLiteAuditTrail.append(trail(old, new), in: db) }
        return new
    }

    // MARK: refresh families

    private static func family(_ row: Row) -> RefreshFamily {
        RefreshFamily(
            familyID: row["family_id"], tenantID: row["tenant_id"], clientID: row["client_id"], subject: row["subject"],
            scope: row["scope"],
            nonce: row["nonce"], dpopJKT: row["dpop_jkt"], revoked: row["revoked"],
            createdAt: StoreClock.date(row["created_at_ms"]),
            absoluteExpiry: StoreClock.date(row["absolute_expiry_ms"]),
            sessionID: row["session_id"], authTime: (row["auth_time_ms"] as Int64?).map { $0 / 1000 })
    }

    public func createFamily(
        _ f: RefreshFamily, tokenHash: String, idleExpiry: Date, accessToken: IssuedAccessToken?
    ) async throws -> LocalUser? {
        let sealer = self.sealer
        return try await pool.write { db in
            try db.execute(
                sql:
                    "INSERT INTO auth_refresh_families (family_id, tenant_id, client_id, subject, scope, nonce, dpop_jkt, revoked, created_at_ms, absolute_expiry_ms, session_id, auth_time_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    f.familyID, f.tenantID, f.clientID, f.subject, f.scope, f.nonce, f.dpopJKT, f.revoked,
                    StoreClock.milliseconds(f.createdAt), StoreClock.milliseconds(f.absoluteExpiry), f.sessionID,
                    f.authTime.map { $0 * 1000 },
                ])
            try Self.insertToken(db, hash: tokenHash, familyID: f.familyID, idleExpiry: idleExpiry)
            if let accessToken {
                try Self.record(db, accessToken, familyID: f.familyID, now: f.createdAt)
            }
            return try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM auth_users WHERE tenant_id = ? AND subject = ?"),
                arguments: [f.tenantID, f.subject]
            ).map { try Self.user($0, sealer: sealer) }
        }
    }

    // The statements a refresh runs are cached per connection (issue 32: preparing them on
    // every request, with GRDB's authorizer, was 7 % of a refused refresh).
    public func rotate(
        tokenHash: String, tenantID: String, clientID: String, newHash: String, now: Date, idleExpiry: Date,
        accessToken: IssuedAccessToken?
    ) async throws -> RefreshRotation {
        try await pool.write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT f.*, t.state AS token_state, t.idle_expiry_ms FROM auth_refresh_tokens t JOIN auth_refresh_families f USING (family_id)
                            WHERE t.token_hash = ?
                            """), arguments: [tokenHash])
            else { return .invalid }
            let family = Self.family(row)
            guard family.tenantID == tenantID, family.clientID == clientID else { return .invalid }
            if family.revoked { return .invalid }
            let state: String = row["token_state"]
            if state != "active" {
                let tokens = try Self.revoke(db, familyID: family.familyID, now: now)
                return .reused(family: family, accessTokens: tokens)
            }
            let idle: Int64 = row["idle_expiry_ms"]
            guard idle > StoreClock.milliseconds(now), family.absoluteExpiry > now else { return .invalid }
            try db.cachedStatement(sql: "UPDATE auth_refresh_tokens SET state = 'rotated' WHERE token_hash = ?")
                .execute(arguments: [tokenHash])
            try Self.insertToken(
                db, hash: newHash, familyID: family.familyID, idleExpiry: min(idleExpiry, family.absoluteExpiry))
            if let accessToken {
                try Self.record(db, accessToken, familyID: family.familyID, now: now)
            }
            return .rotated(family)
        }
    }

    public func recordAccessToken(familyID: String, jti: String, expiresAt: Date) async throws {
        try await pool.write { db in
            try Self.record(db, IssuedAccessToken(jti: jti, expiresAt: expiresAt), familyID: familyID, now: Date())
        }
    }

    private static func insertToken(_ db: Database, hash: String, familyID: String, idleExpiry: Date) throws {
        try db.cachedStatement(
            sql: "INSERT INTO auth_refresh_tokens (token_hash, family_id, state, idle_expiry_ms) VALUES (?, ?, 'active', ?)"
        ).execute(arguments: [hash, familyID, StoreClock.milliseconds(idleExpiry)])
    }

    /// Records an access token issued from a family, forgetting the family's expired ones.
    private static func record(_ db: Database, _ token: IssuedAccessToken, familyID: String, now: Date) throws {
        try db.cachedStatement(sql: "DELETE FROM auth_family_access_tokens WHERE family_id = ? AND expires_at_ms < ?")
            .execute(arguments: [familyID, StoreClock.milliseconds(now)])
        try db.cachedStatement(
            sql: "INSERT INTO auth_family_access_tokens (family_id, jti, expires_at_ms) VALUES (?, ?, ?)"
        ).execute(arguments: [familyID, token.jti, StoreClock.milliseconds(token.expiresAt)])
    }

    public func family(ofTokenHash tokenHash: String) async throws -> RefreshFamily? {
        try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT f.* FROM auth_refresh_tokens t JOIN auth_refresh_families f USING (family_id) WHERE t.token_hash = ?"
                ),
                arguments: [tokenHash]
            ).map(Self.family)
        }
    }

    public func familyWithUser(ofTokenHash tokenHash: String) async throws -> (family: RefreshFamily, user: LocalUser?)? {
        let sealer = self.sealer
        return try await pool.read { db in
            // The family's columns come first, so reading a name both tables have (tenant_id,
            // subject, created_at_ms) gives the family's; the user's start after the marker.
            let statement = try db.cachedStatement(
                sql: """
                    SELECT f.*, NULL AS user_columns, u.* FROM auth_refresh_tokens t
                    JOIN auth_refresh_families f USING (family_id)
                    LEFT JOIN auth_users u ON u.tenant_id = f.tenant_id AND u.subject = f.subject
                    WHERE t.token_hash = ?
                    """)
            guard let marker = statement.columnNames.firstIndex(of: "user_columns") else { return nil }
            let adapter = ScopeAdapter(["user": SuffixRowAdapter(fromIndex: marker + 1)])
            guard let row = try Row.fetchOne(statement, arguments: [tokenHash], adapter: adapter) else { return nil }
            let user = try row.scopes["user"].flatMap { scoped -> LocalUser? in
                (scoped["username"] as String?) == nil ? nil : try Self.user(scoped, sealer: sealer)
            }
            return (family: Self.family(row), user: user)
        }
    }

    public func revokeFamily(_ familyID: String, now: Date) async throws -> [(jti: String, expiresAt: Date)] {
        try await pool.write { db in try Self.revoke(db, familyID: familyID, now: now) }
    }

    public func revokeFamilies(
        _ selection: RefreshFamilySelection, now: Date
    ) async throws -> [(jti: String, expiresAt: Date)] {
        let base = "SELECT family_id FROM auth_refresh_families WHERE tenant_id = ? AND subject = ? AND revoked = 0"
        let (sql, arguments): (String, StatementArguments) =
            switch selection {
            case .subject(let tenantID, let subject): (base, [tenantID, subject])
            case .session(let tenantID, let subject, let sessionID):
                (base + " AND session_id = ?", [tenantID, subject, sessionID])
            case .client(let tenantID, let subject, let clientID):
                (base + " AND client_id = ?", [tenantID, subject, clientID])
            case .family(let tenantID, let subject, let familyID):
                (base + " AND family_id = ?", [tenantID, subject, familyID])
            }
        return try await pool.write { db in
            let ids = try String.fetchAll(db, sql: sql, arguments: arguments)
            return try ids.flatMap { try Self.revoke(db, familyID: $0, now: now) }
        }
    }

    public func liveFamilies(tenantID: String, subject: String, now: Date, limit: Int) async throws -> [RefreshFamily] {
        let now = StoreClock.milliseconds(now)
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT f.* FROM auth_refresh_families f
                    WHERE f.tenant_id = ? AND f.subject = ? AND f.revoked = 0 AND f.absolute_expiry_ms > ?
                        AND EXISTS (SELECT 1 FROM auth_refresh_tokens t
                            WHERE t.family_id = f.family_id AND t.state = 'active' AND t.idle_expiry_ms > ?)
                    ORDER BY f.created_at_ms DESC, f.family_id LIMIT ?
                    """, arguments: [tenantID, subject, now, now, limit]
            ).map(Self.family)
        }
    }

    public func purgeRefreshState(now: Date, limit: Int) async throws -> RefreshPurge {
        let now = StoreClock.milliseconds(now)
        return try await pool.write { db in
            try db.execute(sql: """
                DELETE FROM auth_family_access_tokens WHERE rowid IN
                    (SELECT rowid FROM auth_family_access_tokens WHERE expires_at_ms < ? LIMIT ?)
                """, arguments: [now, limit])
            let accessTokens = db.changesCount
            // The refresh tokens go with their family (ON DELETE CASCADE).
            try db.execute(
                sql: """
                    DELETE FROM auth_refresh_families WHERE family_id IN (
                        SELECT f.family_id FROM auth_refresh_families f WHERE (f.absolute_expiry_ms < ? OR f.revoked = 1)
                        AND NOT EXISTS (SELECT 1 FROM auth_family_access_tokens a WHERE a.family_id = f.family_id AND a.expires_at_ms >= ?)
                        LIMIT ?)
                    """, arguments: [now, now, limit])
            return RefreshPurge(families: db.changesCount, accessTokens: accessTokens)
        }
    }

    private static func revoke(_ db: Database, familyID: String, now: Date) throws -> [(jti: String, expiresAt: Date)] {
        try db.execute(sql: "UPDATE auth_refresh_families SET revoked = 1 WHERE family_id = ?", arguments: [familyID])
        try db.execute(
            sql: "UPDATE auth_refresh_tokens SET state = 'revoked' WHERE family_id = ?", arguments: [familyID])
        return try Row.fetchAll(
            db,
            sql: "SELECT jti, expires_at_ms FROM auth_family_access_tokens WHERE family_id = ? AND expires_at_ms > ?",
            arguments: [familyID, StoreClock.milliseconds(now)]
        )
        .map { (jti: $0["jti"], expiresAt: StoreClock.date($0["expires_at_ms"])) }
    }
}
