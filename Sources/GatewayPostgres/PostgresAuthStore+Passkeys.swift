import Foundation
import GatewayCore
import PostgresNIO

/// ``PasskeyStore`` in `auth_passkeys`: binary members as base64url text.
extension PostgresAuthStore {
    private typealias PasskeyRow = (
        String, String, String, String, Int, Int64, Bool, Bool, String, String, String, Int64, Int64?
    )
    private static let passkeyColumns = """
        tenant_id, credential_id, subject, public_key, algorithm, sign_count, backup_eligible, backed_up, aaguid,
        transports, name, created_at_ms, last_used_at_ms
        """

    private static func passkey(_ row: PasskeyRow) -> StoredPasskey? {
        guard let credentialID = Base64URL.decode(row.1), let publicKey = Base64URL.decode(row.3),
            let aaguid = Base64URL.decode(row.8)
        else { return nil }
        return StoredPasskey(
            tenantID: row.0, subject: row.2, credentialID: Array(credentialID), publicKey: Array(publicKey),
            algorithm: row.4, signCount: UInt32(clamping: row.5), backupEligible: row.6, backedUp: row.7,
            aaguid: Array(aaguid), transports: row.9.split(separator: ",").map(String.init), name: row.10,
            createdAt: StoreClock.date(row.11), lastUsedAt: row.12.map(StoreClock.date))
    }

    public func addPasskey(_ passkey: StoredPasskey, trail: AuditDraft?) async throws {
        try await database.transaction { connection in try await Self.insert(passkey, trail: trail, on: connection) }
    }

    public func addUser(
        _ user: LocalUser, holding passkey: StoredPasskey, userTrail: (@Sendable (LocalUser) -> AuditDraft)?,
        passkeyTrail: AuditDraft?
    ) async throws {
        let totp = try sealedTOTP(user)
        let now = StoreClock.milliseconds(Date())
        try await database.transaction { connection in
            try await Self.insert(user, sealedTOTP: totp, at: now, trail: userTrail, on: connection)
            try await Self.insert(passkey, trail: passkeyTrail, on: connection)
        }
    }

    /// Inserts a passkey (and its audit record) on the caller's transaction, within the bound.
    private static func insert(_ passkey: StoredPasskey, trail: AuditDraft?, on connection: PostgresConnection)
        async throws
    {
        let credentialID = Base64URL.encode(passkey.credentialID)
        let publicKey = Base64URL.encode(passkey.publicKey)
        let aaguid = Base64URL.encode(passkey.aaguid)
        let transports = passkey.transports.joined(separator: ",")
        let signCount = Int64(passkey.signCount)
        let createdAt = StoreClock.milliseconds(passkey.createdAt)
        // One writer per user: the bound counts what the others added.
        let lock = "gateway-passkeys:\(passkey.tenantID):\(passkey.subject)"
        _ = try await connection.execute("SELECT pg_advisory_xact_lock(hashtext(\(lock)))")
        let held: Int64 =
            try await connection.first(
                "SELECT count(*) FROM auth_passkeys WHERE tenant_id = \(passkey.tenantID) AND subject = \(passkey.subject)",
                as: Int64.self) ?? 0
        guard held < Int64(StoredPasskey.maximumPerUser) else {
            throw AuthStoreError.invalid("a user holds \(StoredPasskey.maximumPerUser) passkeys at most")
        }
        let inserted = try await connection.execute(
            """
            INSERT INTO auth_passkeys (\(unescaped: passkeyColumns))
            VALUES (\(passkey.tenantID), \(credentialID), \(passkey.subject), \(publicKey), \(passkey.algorithm),
                \(signCount), \(passkey.backupEligible), \(passkey.backedUp), \(aaguid), \(transports),
                \(passkey.name), \(createdAt), NULL)
            ON CONFLICT DO NOTHING RETURNING 1
            """)
        if inserted == 0 { throw AuthStoreError.alreadyExists("passkey") }
        if let trail { _ = try await PostgresAuditTrail.append(trail, on: connection) }
    }

    public func passkey(tenantID: String, credentialID: [UInt8]) async throws -> StoredPasskey? {
        try await client.first(
            """
            SELECT \(unescaped: Self.passkeyColumns) FROM auth_passkeys
            WHERE tenant_id = \(tenantID) AND credential_id = \(Base64URL.encode(credentialID))
            """, as: PasskeyRow.self
        ).flatMap(Self.passkey)
    }

    public func passkeys(tenantID: String, subject: String) async throws -> [StoredPasskey] {
        try await client.all(
            """
            SELECT \(unescaped: Self.passkeyColumns) FROM auth_passkeys WHERE tenant_id = \(tenantID) AND subject = \(subject)
            ORDER BY created_at_ms, credential_id COLLATE "C" LIMIT \(StoredPasskey.maximumPerUser)
            """, as: PasskeyRow.self
        ).compactMap(Self.passkey)
    }

    public func recordPasskeyUse(
        tenantID: String, credentialID: [UInt8], from: UInt32, to: UInt32, backedUp: Bool, at: Date
    ) async throws -> Bool {
        let updated = try await client.execute(
            """
            UPDATE auth_passkeys SET sign_count = \(Int64(to)), backed_up = \(backedUp),
                last_used_at_ms = \(StoreClock.milliseconds(at))
            WHERE tenant_id = \(tenantID) AND credential_id = \(Base64URL.encode(credentialID)) AND sign_count = \(Int64(from))
            RETURNING 1
            """)
        return updated == 1
    }

    public func renamePasskey(
        tenantID: String, subject: String, credentialID: [UInt8], name: String, trail: AuditDraft?
    ) async throws {
        let name = String(name.prefix(StoredPasskey.maximumNameLength))
        let id = Base64URL.encode(credentialID)
        try await database.transaction { connection in
            let renamed = try await connection.execute(
                """
                UPDATE auth_passkeys SET name = \(name)
                WHERE tenant_id = \(tenantID) AND subject = \(subject) AND credential_id = \(id) RETURNING 1
                """)
            if renamed == 0 { throw AuthStoreError.notFound("passkey") }
            if let trail { _ = try await PostgresAuditTrail.append(trail, on: connection) }
        }
    }

    public func removePasskey(tenantID: String, subject: String, credentialID: [UInt8], trail: AuditDraft?) async throws
    {
        let id = Base64URL.encode(credentialID)
        try await database.transaction { connection in
            let removed = try await connection.execute(
                """
                DELETE FROM auth_passkeys WHERE tenant_id = \(tenantID) AND subject = \(subject) AND credential_id = \(id)
                RETURNING 1
                """)
            if removed == 0 { throw AuthStoreError.notFound("passkey") }
            if let trail { _ = try await PostgresAuditTrail.append(trail, on: connection) }
        }
    }
}
