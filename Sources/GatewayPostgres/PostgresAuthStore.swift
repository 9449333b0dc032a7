import Crypto
import Foundation
import GatewayCore
import PostgresNIO

/// The authorization server's stores on PostgreSQL (same tables as SQLite). Private
/// signing keys are sealed with the master key; client secrets, passwords and refresh
/// tokens are stored as hashes only.
public final class PostgresAuthStore: AuthStore {
    let database: PostgresDatabase
    private let documents = ClientDocuments()

    public init(database: PostgresDatabase) {
        self.database = database
    }

    var client: CountedPool { database.pool }

    // MARK: signing keys

    public func signingKeys(tenantID: String) async throws -> [SigningKey] {
        try await Self.signingKeys(client, tenantID: tenantID, sealer: database.sealer)
    }

    private static func signingKeys(
        _ runner: some SQLRunner, tenantID: String, sealer: SecretSealer
    ) async throws -> [SigningKey] {
        let rows = try await runner.all("""
            SELECT kid, state, private_key_sealed, created_at_ms, sign_from_ms, sign_until_ms, unpublish_at_ms
            FROM auth_signing_keys WHERE tenant_id = \(tenantID) ORDER BY created_at_ms DESC, kid DESC
            """, as: (String, String, String, Int64, Int64?, Int64?, Int64?).self)
        return try rows.map { kid, state, sealed, createdAt, signFrom, signUntil, unpublishAt in
            let pem = try sealer.open(sealed, context: SigningKey.sealingContext(tenantID: tenantID, kid: kid))
            return try SigningKey(
                tenantID: tenantID, kid: kid, state: SigningKey.State(rawValue: state) ?? .retired,
                createdAt: StoreClock.date(createdAt),
                schedule: SigningKey.Schedule(stored: (signFrom, signUntil, unpublishAt), createdAtMS: createdAt),
                pem: pem)
        }
    }

    public func addSigningKey(_ key: SigningKey, trail: AuditDraft?) async throws {
        let sealed = try database.sealer.seal(
            key.pemRepresentation, context: SigningKey.sealingContext(tenantID: key.tenantID, kid: key.kid))
        try await database.transaction { connection in
            try await Self.lockSigningKeys(of: key.tenantID, connection)
            try await Self.insert(key, sealed: sealed, connection)
            if let trail { _ = try await PostgresAuditTrail.append(trail, on: connection) }
        }
    }

    /// One key writer at a time per tenant (until the transaction ends): the others wait and
    /// then read what it wrote.
    private static func lockSigningKeys(of tenantID: String, _ connection: PostgresConnection) async throws {
        let lock = "gateway-signing-keys:" + tenantID
        try await connection.execute("SELECT pg_advisory_xact_lock(hashtext(\(lock)))")
    }

    public func addFirstSigningKey(_ key: SigningKey, now: Date) async throws -> Bool {
        let sealer = database.sealer
        let sealed = try sealer.seal(
            key.pemRepresentation, context: SigningKey.sealingContext(tenantID: key.tenantID, kid: key.kid))
        return try await database.transaction { connection in
            // One replica at a time per tenant: the others see its key and add none.
            try await Self.lockSigningKeys(of: key.tenantID, connection)
            let keys = try await Self.signingKeys(connection, tenantID: key.tenantID, sealer: sealer)
            guard TenantKeys(keys).signer(key.algorithm, at: now) == nil else { return false }
            try await Self.insert(key, sealed: sealed, connection)
            return true
        }
    }

    private static func insert(_ key: SigningKey, sealed: String, _ connection: PostgresConnection) async throws {
        let schedule = key.schedule.stored
        try await connection.execute(
            """
            INSERT INTO auth_signing_keys (kid, tenant_id, state, private_key_sealed, created_at_ms,
                sign_from_ms, sign_until_ms, unpublish_at_ms)
            VALUES (\(key.kid), \(key.tenantID), \(key.state.rawValue), \(sealed), \(StoreClock.milliseconds(key.createdAt)),
                \(schedule.signFrom), \(schedule.signUntil), \(schedule.unpublishAt))
            """)
        try await PostgresTenantStore.bumpChangeCounter(connection, tenants: [key.tenantID])
    }

    public func scheduleSigningKeys(
        tenantID: String, trail: (@Sendable ([SigningKey], [String: SigningKey.Schedule]) -> AuditDraft)?,
        _ plan: @escaping @Sendable ([SigningKey]) throws -> [String: SigningKey.Schedule]
    ) async throws -> [String: SigningKey.Schedule] {
        let sealer = database.sealer
        return try await database.transaction { connection in
            try await Self.lockSigningKeys(of: tenantID, connection)
            let keys = try await Self.signingKeys(connection, tenantID: tenantID, sealer: sealer)
            let schedules = try plan(keys)
            guard !schedules.isEmpty else { return schedules }
            for (kid, schedule) in schedules.sorted(by: { $0.key < $1.key }) {
                let stored = schedule.stored
                let changed = try await connection.execute("""
                    UPDATE auth_signing_keys SET sign_from_ms = \(stored.signFrom), sign_until_ms = \(stored.signUntil),
                        unpublish_at_ms = \(stored.unpublishAt)
                    WHERE tenant_id = \(tenantID) AND kid = \(kid) RETURNING 1
                    """)
                if changed == 0 { throw AuthStoreError.notFound("signing key \(kid)") }
            }
            try await PostgresTenantStore.bumpChangeCounter(connection, tenants: [tenantID])
            if let trail { _ = try await PostgresAuditTrail.append(trail(keys, schedules), on: connection) }
            return schedules
        }
    }

    // MARK: clients

    public func client(tenantID: String, clientID: String) async throws -> OAuthClient? {
        let document = try await client.first(
            "SELECT document FROM auth_clients WHERE tenant_id = \(tenantID) AND client_id = \(clientID)",
            as: String.self)
        return try document.map(documents.client)
    }

    public func clients(tenantID: String) async throws -> [OAuthClient] {
        try await client.column(
            "SELECT document FROM auth_clients WHERE tenant_id = \(tenantID) ORDER BY client_id COLLATE \"C\"",
            as: String.self
        )
        .map { try JSONDecoder().decode(OAuthClient.self, from: Data($0.utf8)) }
    }

    public func addClients(_ clients: [NewClient], trail: (@Sendable (OAuthClient) -> AuditDraft)?) async throws {
        let rows = try clients.map { entry in
            let stored = try ClientRevision.first(entry.client)
            return (stored, entry.secretHash, String(decoding: try JSONEncoder().encode(stored), as: UTF8.self))
        }
        let now = StoreClock.milliseconds(Date())
        try await database.transaction { connection in
            for (client, secretHash, document) in rows {
                let inserted = try await connection.execute("""
                    INSERT INTO auth_clients (tenant_id, client_id, document, secret_hash, created_at_ms)
                    VALUES (\(client.tenantID), \(client.clientID), \(document), \(secretHash), \(now))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """)
                if inserted == 0 { throw AuthStoreError.alreadyExists("client \(client.clientID)") }
                if let trail { _ = try await PostgresAuditTrail.append(trail(client), on: connection) }
            }
        }
    }

    @discardableResult
    public func writeClient(
        tenantID: String, clientID: String, trail: (@Sendable (OAuthClient, OAuthClient?) -> AuditDraft)?,
        _ change: @Sendable (OAuthClient) throws -> OAuthClient?
    ) async throws -> OAuthClient? {
        // Unbounded: the transaction then runs in this task, so `change` never outlives the call.
        try await withoutActuallyEscaping(change) { change in
            try await database.transaction(unbounded: true) { connection in
                guard
                    let document = try await connection.first(
                        "SELECT document FROM auth_clients WHERE tenant_id = \(tenantID) AND client_id = \(clientID) FOR UPDATE",
                        as: String.self)
                else { throw AuthStoreError.notFound("client \(clientID)") }
                let old = try JSONDecoder().decode(OAuthClient.self, from: Data(document.utf8))
                let new = try change(old).map { try ClientRevision.next(after: old, $0) }
                if let new {
                    let json = String(decoding: try JSONEncoder().encode(new), as: UTF8.self)
                    try await connection.execute(
                        "UPDATE auth_clients SET document = \(json) WHERE tenant_id = \(tenantID) AND client_id = \(clientID)")
                } else {
                    try await connection.execute(
                        "DELETE FROM auth_clients WHERE tenant_id = \(tenantID) AND client_id = \(clientID)")
                }
                if let trail { _ = try await PostgresAuditTrail.append(trail(old, new), on: connection) }
                return new
            }
        }
    }

    public func clientSecretHash(tenantID: String, clientID: String) async throws -> String? {
        try await client.first(
            "SELECT secret_hash FROM auth_clients WHERE tenant_id = \(tenantID) AND client_id = \(clientID)",
            as: String?.self) ?? nil
    }

    // MARK: users

    static let userColumns =
        "tenant_id, username, subject, name, email, picture, disabled, password_hash, totp_secret_sealed, revision, phone, verified"
    typealias UserRow = (String, String, String, String?, String?, String?, Bool, String, String?, Int64, String?, Int64)

    func user(_ row: UserRow) throws -> LocalUser {
        let totp = try row.8.map {
            SecretValue(
                try database.sealer.open($0, context: LocalUser.totpSealingContext(tenantID: row.0, subject: row.2)))
        }
        var user = LocalUser(
            tenantID: row.0, username: row.1, subject: row.2, name: row.3, email: row.4, phone: row.10, picture: row.5,
            disabled: row.6, passwordHash: row.7,
            totpSecret: totp, revision: row.9)
        user.setVerified(bits: row.11)
        return user
    }

    func sealedTOTP(_ user: LocalUser) throws -> String? {
        try user.totpSecret.map {
            try database.sealer.seal(
                $0.plaintext, context: LocalUser.totpSealingContext(tenantID: user.tenantID, subject: user.subject))
        }
    }

    public func user(tenantID: String, username: String) async throws -> LocalUser? {
        try await client.first(
            "SELECT \(unescaped: Self.userColumns) FROM auth_users WHERE tenant_id = \(tenantID) AND username = \(username)",
            as: UserRow.self
        ).map(user)
    }

    public func user(tenantID: String, subject: String) async throws -> LocalUser? {
        try await client.first(
            "SELECT \(unescaped: Self.userColumns) FROM auth_users WHERE tenant_id = \(tenantID) AND subject = \(subject)",
            as: UserRow.self
        ).map(user)
    }

    public func users(tenantID: String) async throws -> [LocalUser] {
        try await client.all(
            "SELECT \(unescaped: Self.userColumns) FROM auth_users WHERE tenant_id = \(tenantID) ORDER BY username COLLATE \"C\"",
            as: UserRow.self
        ).map(user)
    }

    public func users(tenantID: String, email: String, limit: Int) async throws -> [LocalUser] {
        try await client.all("""
            SELECT \(unescaped: Self.userColumns) FROM auth_users WHERE tenant_id = \(tenantID) AND lower(email) = lower(\(email))
            ORDER BY username COLLATE "C" LIMIT \(limit)
            """, as: UserRow.self).map(user)
    }

    public func users(tenantID: String, phone: String, limit: Int) async throws -> [LocalUser] {
        try await client.all("""
            SELECT \(unescaped: Self.userColumns) FROM auth_users WHERE tenant_id = \(tenantID) AND phone = \(phone)
            ORDER BY username COLLATE "C" LIMIT \(limit)
            """, as: UserRow.self).map(user)
    }

    public func users(tenantID: String, after: String?, limit: Int, disabled: Bool?) async throws -> [LocalUser] {
        try await client.all("""
            SELECT \(unescaped: Self.userColumns) FROM auth_users
            WHERE tenant_id = \(tenantID) AND username > \(after ?? "") COLLATE "C"
                AND (\(disabled)::BOOLEAN IS NULL OR disabled = \(disabled))
            ORDER BY username COLLATE "C" LIMIT \(limit)
            """, as: UserRow.self).map(user)
    }

    public func addUsers(_ users: [LocalUser], trail: (@Sendable (LocalUser) -> AuditDraft)?) async throws {
        let rows = try users.map { ($0, try sealedTOTP($0)) }
        let now = StoreClock.milliseconds(Date())
        try await database.transaction { connection in
            for (user, totp) in rows {
                try await Self.insert(user, sealedTOTP: totp, at: now, trail: trail, on: connection)
            }
        }
    }

    /// Inserts a new user (and its audit record) on the caller's transaction; `alreadyExists`
    /// for a taken username or subject.
    static func insert(
        _ user: LocalUser, sealedTOTP totp: String?, at now: Int64, trail: (@Sendable (LocalUser) -> AuditDraft)?,
        on connection: PostgresConnection
    ) async throws {
        let inserted = try await connection.execute("""
            INSERT INTO auth_users (tenant_id, username, subject, password_hash, name, email, phone, picture, disabled, totp_secret_sealed, created_at_ms, revision, verified)
            VALUES (\(user.tenantID), \(user.username), \(user.subject), \(user.passwordHash), \(user.name), \(user.email), \(user.phone), \(user.picture),
                    \(user.disabled), \(totp), \(now), 1, \(user.verifiedBits))
            ON CONFLICT DO NOTHING RETURNING 1
            """)
        guard inserted == 0 else {
            var stored = user
            stored.revision = 1
            if let trail { _ = try await PostgresAuditTrail.append(trail(stored), on: connection) }
            return
        }
        // Either unique key: (tenant, username) or (tenant, subject).
        let usernameTaken =
            try await connection.first(
                "SELECT 1 FROM auth_users WHERE tenant_id = \(user.tenantID) AND username = \(user.username)",
                as: Int32.self) != nil
        throw AuthStoreError.alreadyExists(
            usernameTaken ? "user \(user.username)" : "user with subject \(user.subject)")
    }

    public func writeUser(
        tenantID: String, username: String, trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?,
        _ change: @escaping @Sendable (LocalUser) throws -> LocalUser
    ) async throws -> LocalUser {
        try await database.transaction { connection in
            try await self.writeUser(connection, tenantID: tenantID, username: username, trail: trail, change)
        }
    }

    /// ``writeUser(tenantID:username:trail:_:)`` on the caller's transaction, the user's row
    /// locked first.
    func writeUser(
        _ connection: PostgresConnection, tenantID: String, username: String,
        trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?, _ change: (LocalUser) throws -> LocalUser
    ) async throws -> LocalUser {
        guard
            let row = try await connection.first(
                """
                SELECT \(unescaped: Self.userColumns) FROM auth_users
                WHERE tenant_id = \(tenantID) AND username = \(username) FOR UPDATE
                """, as: UserRow.self)
        else { throw AuthStoreError.notFound("user \(username)") }
        let old = try self.user(row)
        var new = try change(old)
        (new.tenantID, new.username, new.subject, new.revision) = (old.tenantID, old.username, old.subject, old.revision + 1)
        let totp = try self.sealedTOTP(new)
        try await connection.execute("""
            UPDATE auth_users SET password_hash = \(new.passwordHash), name = \(new.name), email = \(new.email),
                phone = \(new.phone), picture = \(new.picture), disabled = \(new.disabled), totp_secret_sealed = \(totp), revision = \(new.revision),
                verified = \(new.verifiedBits)
            WHERE tenant_id = \(tenantID) AND username = \(username)
            """)
        if let trail { _ = try await PostgresAuditTrail.append(trail(old, new), on: connection) }
        return new
    }
}
