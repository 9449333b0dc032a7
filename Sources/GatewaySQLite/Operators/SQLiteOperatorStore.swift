import Foundation
import GatewayCore
import GRDB

/// ``OperatorStore`` in the SQLite file (`operators`, `operator_bindings`); each write and
/// its audit record commit together.
public final class SQLiteOperatorStore: OperatorStore {
    private let pool: DatabasePool
    private let sealer: SecretSealer

    public init(database: SQLiteTenantStore) {
        self.pool = database.pool
        self.sealer = database.sealer
    }

    public func createOperator(_ newOperator: Operator, bindings: [RoleBinding], audit: AuditDraft) async throws {
        let jwks = try newOperator.jwks.map { String(decoding: try $0.encoded(), as: UTF8.self) }
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM operators WHERE name = ?", arguments: [newOperator.name]) != nil {
                throw OperatorError.nameTaken(newOperator.name)
            }
            try db.execute(
                sql: """
                    INSERT INTO operators (id, name, kind, password_hash, secret_hash, jwks, disabled, created_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    newOperator.id, newOperator.name, newOperator.kind.rawValue, newOperator.passwordHash,
                    newOperator.secretHash, jwks, newOperator.disabled, StoreClock.milliseconds(newOperator.createdAt),
                ])
            for binding in bindings { try Self.insert(binding, in: db) }
            _ = try SQLiteAuditTrail.append(audit, in: db)
        }
    }

    public func findOperator(named name: String) async throws -> Operator? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "\(Self.operatorColumns) WHERE name = ?", arguments: [name]).map(Self.decode)
        }
    }

    public func allOperators() async throws -> [Operator] {
        try await pool.read { db in try Row.fetchAll(db, sql: "\(Self.operatorColumns) ORDER BY name").map(Self.decode) }
    }

    public func bindings(operatorID: String) async throws -> [RoleBinding] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT role, tenant_id, mini_app_ids FROM operator_bindings WHERE operator_id = ?
                    ORDER BY COALESCE(tenant_id, ''), role
                    """,
                arguments: [operatorID]
            ).map { row in
                try OperatorRows.binding(
                    operatorID: operatorID, role: row["role"], tenantID: row["tenant_id"], miniAppIDs: row["mini_app_ids"])
            }
        }
    }

    public func allBindings() async throws -> [RoleBinding] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT operator_id, role, tenant_id, mini_app_ids FROM operator_bindings
                    ORDER BY operator_id, COALESCE(tenant_id, ''), role
                    """
            ).map { row in
                try OperatorRows.binding(
                    operatorID: row["operator_id"], role: row["role"], tenantID: row["tenant_id"],
                    miniAppIDs: row["mini_app_ids"])
            }
        }
    }

    public func bind(_ binding: RoleBinding, audit: AuditDraft) async throws -> Bool {
        try await pool.write { db in
            let existing = try String.fetchOne(
                db, sql: "SELECT mini_app_ids FROM operator_bindings WHERE \(Self.scopeMatch)",
                arguments: [binding.operatorID, binding.role.rawValue, binding.tenantID, binding.tenantID])
            if existing == OperatorRows.miniApps(binding.miniAppIDs) { return false }
            if existing != nil {
                try db.execute(
                    sql: "DELETE FROM operator_bindings WHERE \(Self.scopeMatch)",
                    arguments: [binding.operatorID, binding.role.rawValue, binding.tenantID, binding.tenantID])
            }
            try Self.insert(binding, in: db)
            _ = try SQLiteAuditTrail.append(audit, in: db)
            return true
        }
    }

    public func unbind(operatorID: String, role: OperatorRole, tenantID: String?, audit: AuditDraft) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM operator_bindings WHERE \(Self.scopeMatch)",
                arguments: [operatorID, role.rawValue, tenantID, tenantID])
            guard db.changesCount > 0 else { return false }
            _ = try SQLiteAuditTrail.append(audit, in: db)
            return true
        }
    }

    public func storeToken(
        hash: String, operatorID: String, clientID: String?, method: String, sessionID: String?, expiresAt: Date,
        now: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM operator_tokens WHERE operator_id = ? AND expires_at_ms <= ?",
                arguments: [operatorID, StoreClock.milliseconds(now)])
            try db.execute(
                sql: """
                    INSERT INTO operator_tokens (token_hash, operator_id, client_id, method, session_id, expires_at_ms,
                        created_at_ms)
                    SELECT ?, id, ?, ?, ?, ?, ? FROM operators WHERE id = ? AND NOT disabled
                    """,
                arguments: [
                    hash, clientID, method, sessionID, StoreClock.milliseconds(expiresAt), StoreClock.milliseconds(now),
                    operatorID,
                ])
            return db.changesCount == 1
        }
    }

    public func tokenOwner(hash: String, now: Date) async throws -> OperatorTokenOwner? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT o.id, o.name, o.kind, o.password_hash, o.secret_hash, o.jwks, o.disabled,
                            o.created_at_ms, t.client_id, t.method
                        FROM operator_tokens t JOIN operators o ON o.id = t.operator_id
                        WHERE t.token_hash = ? AND t.expires_at_ms > ?
                        """,
                    arguments: [hash, StoreClock.milliseconds(now)])
            else { return nil }
            return OperatorTokenOwner(owner: try Self.decode(row), clientID: row["client_id"], method: row["method"])
        }
    }

    public func storeGrant(_ grant: OperatorGrant, now: Date) async throws {
        try await pool.write { db in
            let nowMS = StoreClock.milliseconds(now)
            try db.execute(sql: OperatorGrantSQL.purge, arguments: [grant.operatorID, nowMS, nowMS])
            try db.execute(
                sql: """
                    INSERT INTO operator_grants (grant_hash, kind, operator_id, client_id, redirect_uri, code_challenge,
                        method, expires_at_ms, session_expires_at_ms, session_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    grant.hash, grant.kind.rawValue, grant.operatorID, grant.clientID, grant.redirectURI,
                    grant.codeChallenge, grant.method, StoreClock.milliseconds(grant.expiresAt),
                    StoreClock.milliseconds(grant.sessionExpiresAt), grant.sessionID,
                ])
        }
    }

    public func consumeGrant(hash: String, kind: OperatorGrant.Kind, now: Date) async throws -> OperatorGrantUse {
        let nowMS = StoreClock.milliseconds(now)
        return try await pool.write { db in
            if let row = try Row.fetchOne(
                db, sql: OperatorGrantSQL.take, arguments: [nowMS, hash, kind.rawValue, nowMS])
            {
                let expires: Int64 = row["expires_at_ms"]
                // A grant from before sign-ins had ids is a sign-in of its own.
                let sessionID: String = row["session_id"] ?? hash
                return .taken(
                    OperatorGrant(
                        kind: kind, hash: hash, operatorID: row["operator_id"], clientID: row["client_id"],
                        redirectURI: row["redirect_uri"], codeChallenge: row["code_challenge"], method: row["method"],
                        expiresAt: StoreClock.date(expires), sessionExpiresAt: StoreClock.date(row["session_expires_at_ms"]),
                        sessionID: sessionID))
            }
            guard
                let sessionID = try String.fetchOne(
                    db, sql: OperatorGrantSQL.usedSession, arguments: [hash, kind.rawValue])
            else { return .none }
            try db.execute(sql: OperatorGrantSQL.endGrants, arguments: [sessionID])
            try db.execute(sql: OperatorGrantSQL.endTokens, arguments: [sessionID])
            return .reused(sessionID: sessionID)
        }
    }

    public func totpSecret(operatorID: String) async throws -> SecretValue? {
        let sealer = self.sealer
        return try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT totp_secret_sealed FROM operators WHERE id = ?", arguments: [operatorID])
                .map { SecretValue(try sealer.open($0, context: Operator.totpSealingContext(operatorID: operatorID))) }
        }
    }

    public func setDisabled(operatorID: String, disabled: Bool, audit: AuditDraft) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE operators SET disabled = ? WHERE id = ? AND disabled <> ?",
                arguments: [disabled, operatorID, disabled])
            guard db.changesCount == 1 else { return false }
            if disabled {
                try db.execute(sql: "DELETE FROM operator_grants WHERE operator_id = ?", arguments: [operatorID])
                try db.execute(sql: "DELETE FROM operator_tokens WHERE operator_id = ?", arguments: [operatorID])
            }
            _ = try SQLiteAuditTrail.append(audit, in: db)
            return true
        }
    }

    public func setSecretHash(operatorID: String, secretHash: String, audit: AuditDraft) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE operators SET secret_hash = ? WHERE id = ?", arguments: [secretHash, operatorID])
            try db.execute(sql: "DELETE FROM operator_tokens WHERE operator_id = ?", arguments: [operatorID])
            _ = try SQLiteAuditTrail.append(audit, in: db)
        }
    }

    public func deleteOperator(operatorID: String, audit: AuditDraft) async throws -> Bool {
        try await pool.write { db in
            // Bindings, tokens and grants go with it (foreign keys, ON DELETE CASCADE).
            try db.execute(sql: "DELETE FROM operators WHERE id = ?", arguments: [operatorID])
            guard db.changesCount == 1 else { return false }
            _ = try SQLiteAuditTrail.append(audit, in: db)
            return true
        }
    }

    public func setTOTP(operatorID: String, secret: SecretValue?, audit: AuditDraft) async throws {
        let sealed = try secret.map {
            try sealer.seal($0.plaintext, context: Operator.totpSealingContext(operatorID: operatorID))
        }
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE operators SET totp_secret_sealed = ? WHERE id = ?", arguments: [sealed, operatorID])
            try db.execute(sql: "DELETE FROM operator_grants WHERE operator_id = ?", arguments: [operatorID])
            try db.execute(sql: "DELETE FROM operator_tokens WHERE operator_id = ?", arguments: [operatorID])
            _ = try SQLiteAuditTrail.append(audit, in: db)
        }
    }

    /// One binding: operator, role, and the same tenant (or both platform-wide).
    private static let scopeMatch =
        "operator_id = ? AND role = ? AND (tenant_id = ? OR (tenant_id IS NULL AND ? IS NULL))"

    private static func insert(_ binding: RoleBinding, in db: Database) throws {
        if let tenantID = binding.tenantID,
            try Bool.fetchOne(db, sql: "SELECT 1 FROM tenants WHERE id = ?", arguments: [tenantID]) == nil
        {
            throw OperatorError.unknownTenant(tenantID)
        }
        try db.execute(
            sql: "INSERT INTO operator_bindings (operator_id, role, tenant_id, mini_app_ids) VALUES (?, ?, ?, ?)",
            arguments: [
                binding.operatorID, binding.role.rawValue, binding.tenantID, OperatorRows.miniApps(binding.miniAppIDs),
            ])
    }

    private static let operatorColumns =
        "SELECT id, name, kind, password_hash, secret_hash, jwks, disabled, created_at_ms FROM operators"

    private static func decode(_ row: Row) throws -> Operator {
        try OperatorRows.operator(
            id: row["id"], name: row["name"], kind: row["kind"], passwordHash: row["password_hash"],
            secretHash: row["secret_hash"], jwks: row["jwks"], disabled: row["disabled"],
            createdAtMs: row["created_at_ms"])
    }
}
