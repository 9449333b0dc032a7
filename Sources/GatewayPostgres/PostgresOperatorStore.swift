import Foundation
import GatewayCore
import PostgresNIO

/// ``OperatorStore`` in PostgreSQL (`operators`, `operator_bindings`); each write and its
/// audit record commit together.
public final class PostgresOperatorStore: OperatorStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func createOperator(_ newOperator: Operator, bindings: [RoleBinding], audit: AuditDraft) async throws {
        let o = newOperator
        let jwks = try o.jwks.map { String(decoding: try $0.encoded(), as: UTF8.self) }
        try await database.transaction { connection in
            let inserted = try await connection.execute(
                """
                INSERT INTO operators (id, name, kind, password_hash, secret_hash, jwks, disabled, created_at_ms)
                VALUES (\(o.id), \(o.name), \(o.kind.rawValue), \(o.passwordHash), \(o.secretHash), \(jwks), \(o.disabled),
                    \(StoreClock.milliseconds(o.createdAt)))
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """)
            guard inserted == 1 else { throw OperatorError.nameTaken(o.name) }
            for binding in bindings { try await Self.insert(binding, on: connection) }
            _ = try await PostgresAuditTrail.append(audit, on: connection)
        }
    }

    public func findOperator(named name: String) async throws -> Operator? {
        try await database.pool.first(
            "\(unescaped: Self.operatorColumns) WHERE name = \(name)", as: Self.OperatorColumns.self
        ).map(Self.decode)
    }

    public func allOperators() async throws -> [Operator] {
        try await database.pool.all("\(unescaped: Self.operatorColumns) ORDER BY name", as: Self.OperatorColumns.self)
            .map(Self.decode)
    }

    public func bindings(operatorID: String) async throws -> [RoleBinding] {
        try await database.pool.all(
            """
            SELECT role, tenant_id, mini_app_ids FROM operator_bindings WHERE operator_id = \(operatorID)
            ORDER BY COALESCE(tenant_id, ''), role
            """, as: (String, String?, String).self
        ).map { try OperatorRows.binding(operatorID: operatorID, role: $0.0, tenantID: $0.1, miniAppIDs: $0.2) }
    }

    public func allBindings() async throws -> [RoleBinding] {
        try await database.pool.all(
            """
            SELECT operator_id, role, tenant_id, mini_app_ids FROM operator_bindings
            ORDER BY operator_id, COALESCE(tenant_id, ''), role
            """, as: (String, String, String?, String).self
        ).map { try OperatorRows.binding(operatorID: $0.0, role: $0.1, tenantID: $0.2, miniAppIDs: $0.3) }
    }

    public func bind(_ binding: RoleBinding, audit: AuditDraft) async throws -> Bool {
        let (operatorID, role, tenantID) = (binding.operatorID, binding.role.rawValue, binding.tenantID)
        return try await database.transaction { connection in
            let existing = try await connection.first(
                """
                SELECT mini_app_ids FROM operator_bindings WHERE operator_id = \(operatorID) AND role = \(role)
                    AND tenant_id IS NOT DISTINCT FROM \(tenantID) FOR UPDATE
                """, as: String.self)
            if existing == OperatorRows.miniApps(binding.miniAppIDs) { return false }
            if existing != nil {
                try await connection.execute(
                    """
                    DELETE FROM operator_bindings WHERE operator_id = \(operatorID) AND role = \(role)
                        AND tenant_id IS NOT DISTINCT FROM \(tenantID)
                    """)
            }
            try await Self.insert(binding, on: connection)
            _ = try await PostgresAuditTrail.append(audit, on: connection)
            return true
        }
    }

    public func unbind(operatorID: String, role: OperatorRole, tenantID: String?, audit: AuditDraft) async throws -> Bool {
        try await database.transaction { connection in
            let removed = try await connection.execute(
                """
                DELETE FROM operator_bindings WHERE operator_id = \(operatorID) AND role = \(role.rawValue)
                    AND tenant_id IS NOT DISTINCT FROM \(tenantID) RETURNING 1
                """)
            guard removed > 0 else { return false }
            _ = try await PostgresAuditTrail.append(audit, on: connection)
            return true
        }
    }

    public func storeToken(
        hash: String, operatorID: String, clientID: String?, method: String, sessionID: String?, expiresAt: Date,
        now: Date
    ) async throws -> Bool {
        let (nowMS, expiresMS) = (StoreClock.milliseconds(now), StoreClock.milliseconds(expiresAt))
        return try await database.transaction { connection in
            try await connection.execute(
                "DELETE FROM operator_tokens WHERE operator_id = \(operatorID) AND expires_at_ms <= \(nowMS)")
            return try await connection.execute(
                """
                INSERT INTO operator_tokens (token_hash, operator_id, client_id, method, session_id, expires_at_ms,
                    created_at_ms)
                SELECT \(hash), id, \(clientID), \(method), \(sessionID), \(expiresMS), \(nowMS) FROM operators
                WHERE id = \(operatorID) AND NOT disabled RETURNING 1
                """) == 1
        }
    }

    public func tokenOwner(hash: String, now: Date) async throws -> OperatorTokenOwner? {
        guard
            let row = try await database.pool.first(
                """
                SELECT o.id, o.name, o.kind, o.password_hash, o.secret_hash, o.jwks, o.disabled, o.created_at_ms,
                    t.client_id, t.method
                FROM operator_tokens t JOIN operators o ON o.id = t.operator_id
                WHERE t.token_hash = \(hash) AND t.expires_at_ms > \(StoreClock.milliseconds(now))
                """, as: (String, String, String, String?, String?, String?, Bool, Int64, String?, String).self)
        else { return nil }
        return OperatorTokenOwner(
            owner: try Self.decode((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7)), clientID: row.8,
            method: row.9)
    }

    public func storeGrant(_ grant: OperatorGrant, now: Date) async throws {
        let (g, nowMS) = (grant, StoreClock.milliseconds(now))
        try await database.transaction { connection in
            // The operator's spent grants: unused and expired, or of a sign-in that has ended.
            try await connection.execute(
                """
                DELETE FROM operator_grants WHERE operator_id = \(g.operatorID)
                    AND ((used_at_ms IS NULL AND expires_at_ms <= \(nowMS)) OR session_expires_at_ms <= \(nowMS))
                """)
            try await connection.execute(
                """
                INSERT INTO operator_grants (grant_hash, kind, operator_id, client_id, redirect_uri, code_challenge,
                    method, expires_at_ms, session_expires_at_ms, session_id)
                VALUES (\(g.hash), \(g.kind.rawValue), \(g.operatorID), \(g.clientID), \(g.redirectURI),
                    \(g.codeChallenge), \(g.method), \(StoreClock.milliseconds(g.expiresAt)),
                    \(StoreClock.milliseconds(g.sessionExpiresAt)), \(g.sessionID))
                """)
        }
    }

    public func consumeGrant(hash: String, kind: OperatorGrant.Kind, now: Date) async throws -> OperatorGrantUse {
        let nowMS = StoreClock.milliseconds(now)
        return try await database.transaction { connection in
            // Marks an unused, unexpired grant used and reads it; the row lock makes one of
            // two concurrent takers win, the other then finds it used.
            if let row = try await connection.first(
                """
                UPDATE operator_grants SET used_at_ms = \(nowMS)
                WHERE grant_hash = \(hash) AND kind = \(kind.rawValue) AND used_at_ms IS NULL AND expires_at_ms > \(nowMS)
                RETURNING operator_id, client_id, redirect_uri, code_challenge, method, expires_at_ms,
                    session_expires_at_ms, session_id
                """, as: (String, String, String?, String?, String, Int64, Int64, String?).self)
            {
                // A grant from before sign-ins had ids is a sign-in of its own.
                return .taken(
                    OperatorGrant(
                        kind: kind, hash: hash, operatorID: row.0, clientID: row.1, redirectURI: row.2,
                        codeChallenge: row.3, method: row.4, expiresAt: StoreClock.date(row.5),
                        sessionExpiresAt: StoreClock.date(row.6), sessionID: row.7 ?? hash))
            }
            guard
                let used = try await connection.first(
                    """
                    SELECT session_id FROM operator_grants
                    WHERE grant_hash = \(hash) AND kind = \(kind.rawValue) AND used_at_ms IS NOT NULL
                        AND session_id IS NOT NULL
                    """, as: String.self)
            else { return .none }
            try await connection.execute(
                "DELETE FROM operator_grants WHERE session_id = \(used) AND used_at_ms IS NULL")
            try await connection.execute("DELETE FROM operator_tokens WHERE session_id = \(used)")
            return .reused(sessionID: used)
        }
    }

    public func totpSecret(operatorID: String) async throws -> SecretValue? {
        guard
            let row = try await database.pool.first(
                "SELECT totp_secret_sealed FROM operators WHERE id = \(operatorID)", as: (String?).self),
            let sealed = row
        else { return nil }
        return SecretValue(try database.sealer.open(sealed, context: Operator.totpSealingContext(operatorID: operatorID)))
    }

    public func setDisabled(operatorID: String, disabled: Bool, audit: AuditDraft) async throws -> Bool {
        try await database.transaction { connection in
            let changed = try await connection.execute(
                """
                UPDATE operators SET disabled = \(disabled) WHERE id = \(operatorID) AND disabled <> \(disabled)
                RETURNING 1
                """)
            guard changed == 1 else { return false }
            if disabled {
                try await connection.execute("DELETE FROM operator_grants WHERE operator_id = \(operatorID)")
                try await connection.execute("DELETE FROM operator_tokens WHERE operator_id = \(operatorID)")
            }
            _ = try await PostgresAuditTrail.append(audit, on: connection)
            return true
        }
    }

    public func setSecretHash(operatorID: String, secretHash: String, audit: AuditDraft) async throws {
        try await database.transaction { connection in
            try await connection.execute("UPDATE operators SET secret_hash = \(secretHash) WHERE id = \(operatorID)")
            try await connection.execute("DELETE FROM operator_tokens WHERE operator_id = \(operatorID)")
            _ = try await PostgresAuditTrail.append(audit, on: connection)
        }
    }

    public func deleteOperator(operatorID: String, audit: AuditDraft) async throws -> Bool {
        try await database.transaction { connection in
            // Bindings, tokens and grants go with it (foreign keys, ON DELETE CASCADE).
            guard try await connection.execute("DELETE FROM operators WHERE id = \(operatorID) RETURNING 1") == 1 else {
                return false
            }
            _ = try await PostgresAuditTrail.append(audit, on: connection)
            return true
        }
    }

    public func setTOTP(operatorID: String, secret: SecretValue?, audit: AuditDraft) async throws {
        let sealed = try secret.map {
            try database.sealer.seal($0.plaintext, context: Operator.totpSealingContext(operatorID: operatorID))
        }
        try await database.transaction { connection in
            try await connection.execute(
                "UPDATE operators SET totp_secret_sealed = \(sealed) WHERE id = \(operatorID)")
            try await connection.execute("DELETE FROM operator_grants WHERE operator_id = \(operatorID)")
            try await connection.execute("DELETE FROM operator_tokens WHERE operator_id = \(operatorID)")
            _ = try await PostgresAuditTrail.append(audit, on: connection)
        }
    }

    private static func insert(_ binding: RoleBinding, on connection: PostgresConnection) async throws {
        if let tenantID = binding.tenantID,
            try await connection.first("SELECT 1 FROM tenants WHERE id = \(tenantID) FOR KEY SHARE", as: Int32.self) == nil
        {
            throw OperatorError.unknownTenant(tenantID)
        }
        // A concurrent bind of the same scope: the unique index refuses the second.
        try await connection.execute(
            """
            INSERT INTO operator_bindings (operator_id, role, tenant_id, mini_app_ids)
            VALUES (\(binding.operatorID), \(binding.role.rawValue), \(binding.tenantID), \(OperatorRows.miniApps(binding.miniAppIDs)))
            """)
    }

    private typealias OperatorColumns = (String, String, String, String?, String?, String?, Bool, Int64)

    private static let operatorColumns =
        "SELECT id, name, kind, password_hash, secret_hash, jwks, disabled, created_at_ms FROM operators"

    private static func decode(_ r: OperatorColumns) throws -> Operator {
        try OperatorRows.operator(
            id: r.0, name: r.1, kind: r.2, passwordHash: r.3, secretHash: r.4, jwks: r.5, disabled: r.6,
            createdAtMs: r.7)
    }
}
