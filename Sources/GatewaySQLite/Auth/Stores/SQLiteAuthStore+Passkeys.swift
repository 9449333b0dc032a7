import Foundation
import GRDB
import GatewayCore

/// ``PasskeyStore`` in `auth_passkeys`: binary members as base64url text.
extension SQLiteAuthStore {
    private static func passkey(_ row: Row) -> StoredPasskey? {
        let transports: String = row["transports"]
        guard let credentialID = Base64URL.decode(row["credential_id"] as String),
            let publicKey = Base64URL.decode(row["public_key"] as String),
            let aaguid = Base64URL.decode(row["aaguid"] as String)
        else { return nil }
        return StoredPasskey(
            tenantID: row["tenant_id"], subject: row["subject"], credentialID: Array(credentialID),
            publicKey: Array(publicKey), algorithm: row["algorithm"],
            signCount: UInt32(clamping: row["sign_count"] as Int64),
            backupEligible: row["backup_eligible"], backedUp: row["backed_up"], aaguid: Array(aaguid),
            transports: transports.split(separator: ",").map(String.init), name: row["name"],
            createdAt: StoreClock.date(row["created_at_ms"]),
            lastUsedAt: (row["last_used_at_ms"] as Int64?).map(StoreClock.date))
    }

    public func addPasskey(_ passkey: StoredPasskey, trail: AuditDraft?) async throws {
        try await pool.write { db in try Self.insert(passkey, trail: trail, in: db) }
    }

    public func addUser(
        _ user: LocalUser, holding passkey: StoredPasskey, userTrail: (@Sendable (LocalUser) -> AuditDraft)?,
        passkeyTrail: AuditDraft?
    ) async throws {
        let totp = try sealedTOTP(user)
        let now = StoreClock.milliseconds(Date())
        try await pool.write { db in
            try Self.insert(user, sealedTOTP: totp, at: now, trail: userTrail, in: db)
            try Self.insert(passkey, trail: passkeyTrail, in: db)
        }
    }

    /// Inserts a passkey (and its audit record) on the caller's transaction, within the bound.
    private static func insert(_ passkey: StoredPasskey, trail: AuditDraft?, in db: Database) throws {
        let held =
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM auth_passkeys WHERE tenant_id = ? AND subject = ?",
                arguments: [passkey.tenantID, passkey.subject]) ?? 0
        guard held < StoredPasskey.maximumPerUser else {
            throw AuthStoreError.invalid("a user holds \(StoredPasskey.maximumPerUser) passkeys at most")
        }
        try db.execute(
            sql: """
                INSERT INTO auth_passkeys (tenant_id, credential_id, subject, public_key, algorithm, sign_count,
                    backup_eligible, backed_up, aaguid, transports, name, created_at_ms, last_used_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT DO NOTHING
                """,
            arguments: [
                passkey.tenantID, Base64URL.encode(passkey.credentialID), passkey.subject,
                Base64URL.encode(passkey.publicKey), passkey.algorithm, Int64(passkey.signCount),
                passkey.backupEligible, passkey.backedUp, Base64URL.encode(passkey.aaguid),
                passkey.transports.joined(separator: ","), passkey.name, StoreClock.milliseconds(passkey.createdAt),
            ])
        guard db.changesCount == 1 else { throw AuthStoreError.alreadyExists("passkey") }
        if let trail { _ = try SQLiteAuditTrail.append(trail, in: db) }
    }

    public func passkey(tenantID: String, credentialID: [UInt8]) async throws -> StoredPasskey? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM auth_passkeys WHERE tenant_id = ? AND credential_id = ?",
                arguments: [tenantID, Base64URL.encode(credentialID)]
            ).flatMap(Self.passkey)
        }
    }

    public func passkeys(tenantID: String, subject: String) async throws -> [StoredPasskey] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM auth_passkeys WHERE tenant_id = ? AND subject = ?
                    ORDER BY created_at_ms, credential_id LIMIT ?
                    """, arguments: [tenantID, subject, StoredPasskey.maximumPerUser]
            ).compactMap(Self.passkey)
        }
    }

    public func recordPasskeyUse(
        tenantID: String, credentialID: [UInt8], from: UInt32, to: UInt32, backedUp: Bool, at: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE auth_passkeys SET sign_count = ?, backed_up = ?, last_used_at_ms = ?
                    WHERE tenant_id = ? AND credential_id = ? AND sign_count = ?
                    """,
                arguments: [
                    Int64(to), backedUp, StoreClock.milliseconds(at), tenantID, Base64URL.encode(credentialID),
                    Int64(from),
                ])
            return db.changesCount == 1
        }
    }

    public func renamePasskey(
        tenantID: String, subject: String, credentialID: [UInt8], name: String, trail: AuditDraft?
    ) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE auth_passkeys SET name = ? WHERE tenant_id = ? AND subject = ? AND credential_id = ?",
                arguments: [
                    String(name.prefix(StoredPasskey.maximumNameLength)), tenantID, subject,
                    Base64URL.encode(credentialID),
                ])
            guard db.changesCount == 1 else { throw AuthStoreError.notFound("passkey") }
            if let trail { _ = try SQLiteAuditTrail.append(trail, in: db) }
        }
    }

    public func removePasskey(tenantID: String, subject: String, credentialID: [UInt8], trail: AuditDraft?) async throws
    {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM auth_passkeys WHERE tenant_id = ? AND subject = ? AND credential_id = ?",
                arguments: [tenantID, subject, Base64URL.encode(credentialID)])
            guard db.changesCount == 1 else { throw AuthStoreError.notFound("passkey") }
            if let trail { _ = try SQLiteAuditTrail.append(trail, in: db) }
        }
    }
}
