import GatewayCore
import GatewaySQLite
import PostgresNIO

/// Moves an installation from its SQLite file into PostgreSQL (`gatewayctl db copy`):
/// every table, row by row and column by column, values as stored (sealed secrets stay
/// sealed, so the PostgreSQL gateway needs the same master key), in ONE transaction:
/// a failure leaves the target as it was.
public enum PostgresCopy {
    /// Tables in an order that satisfies the foreign keys. `store_state` and `audit_views` are
    /// not copied as rows: the target's change counter and views cutover are set from the source's.
    static let tables = [
        "tenants", "tenant_audit", "auth_signing_keys", "auth_clients", "auth_users", "auth_refresh_families",
        "auth_refresh_tokens",
        "auth_family_access_tokens", "auth_revoked_tokens", "user_miniapps", "user_consents", "secure_storage_items",
        "analytics_events",
        "localization_overrides", "localization_state", "tenant_domains", "miniapp_tokens", "tenant_changes",
        "auth_identity_providers", "auth_trusted_issuers", "auth_identity_links", "auth_client_consents", "auth_passkeys",
        "release_policies",
        "release_history", "push_devices", "push_messages", "push_deliveries", "push_credentials",
        "courier_messages",
        "user_contacts", "user_blocks", "inbox_messages", "message_sends", "operators", "operator_bindings",
        "operator_tokens", "operator_grants", "audit_records", "audit_checkpoints", "admin_idempotency", "admin_jobs",
    ]
    /// Tables whose `id` comes from an identity sequence, moved past the copied ids.
    static let identityTables = [
        "tenant_audit", "analytics_events", "auth_revoked_tokens", "release_history", "inbox_messages", "audit_records",
    ]

    /// What a copy refuses.
    public enum Refusal: Error, CustomStringConvertible, Equatable {
        case targetNotEmpty(table: String, rows: Int)
        case unknownTable(String)
        case columnMismatch(table: String, column: String)

        public var description: String {
            switch self {
            case .targetNotEmpty(let table, let rows):
                "the target database is not empty (\(table) has \(rows) rows); pass --force to replace everything in it"
            case .unknownTable(let table):
                "this gatewayctl does not know how to copy table \(table) (copy with the gatewayctl of the same version as the database)"
            case .columnMismatch(let table, let column):
                "column \(table).\(column) exists in the source but not in the target (migrate both with the same gatewayctl)"
            }
        }
    }

    /// Copies everything from `source` into `target` (migrated first). With `force`, the
    /// target's rows are deleted first (in the same transaction). `progress` gets each
    /// table's name and row count when it is done. Returns the row count per table.
    public static func copy(
        from source: SQLiteTenantStore, to target: PostgresDatabase, force: Bool, batchSize: Int = 1_000,
        progress: @escaping @Sendable (String, Int) -> Void = { _, _ in }
    ) async throws -> [(table: String, rows: Int)] {
        try await PostgresMigrations.migrate(target)
        let sourceTables = Set(try await source.tableNames())
        for table in sourceTables where !tables.contains(table) && !["store_state", "audit_views"].contains(table) {
            throw Refusal.unknownTable(table)
        }
        let changeCounter = try await source.changeToken()
        // The trail's views start where the source's did (one row, set rather than copied).
        let cutover = try await SQLiteAuditTrail(database: source).viewsCutover()
        return try await target.transaction { connection in
            // Taken first: no other gatewayctl copies or migrates while this runs.
            try await connection.execute("SELECT pg_advisory_xact_lock(\(PostgresMigrations.lockKey))")
            for table in tables {
                let rows =
                    try await connection.first(
                        PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), as: Int64.self) ?? Int64(0)
                guard rows > 0 else { continue }
                guard force else { throw Refusal.targetNotEmpty(table: table, rows: Int(rows)) }
            }
            if force {
                try await connection.execute(
                    PostgresQuery(unsafeSQL: "TRUNCATE \(tables.joined(separator: ", ")) RESTART IDENTITY"))
            }
            var counts: [(table: String, rows: Int)] = []
            for table in tables where sourceTables.contains(table) {
                let copied = try await copyTable(table, from: source, to: connection, batchSize: batchSize)
                counts.append((table, copied))
                progress(table, copied)
            }
            for table in identityTables {
                try await connection.execute(PostgresQuery(unsafeSQL: """
                    SELECT setval(pg_get_serial_sequence('\(table)', 'id'), GREATEST((SELECT max(id) FROM \(table)), 1))
                    """))
            }
            try await connection.execute("UPDATE store_state SET change_counter = \(changeCounter) WHERE id = 1")
            try await connection.execute("UPDATE audit_views SET cutover_id = \(cutover)")
            return counts
        }
    }

    private static func copyTable(
        _ table: String, from source: SQLiteTenantStore, to connection: PostgresConnection, batchSize: Int
    ) async throws -> Int {
        let columns = try await source.columnNames(of: table)
        let types = Dictionary(
            uniqueKeysWithValues: try await connection.all(
                """
                SELECT column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(table)
                """, as: (String, String).self
            ).map { ($0.0, $0.1) })
        for column in columns where types[column] == nil { throw Refusal.columnMismatch(table: table, column: column) }
        let columnList = columns.joined(separator: ", ")
        // At most 65,535 binds per statement.
        let rowsPerStatement = max(1, min(batchSize, 60_000 / max(1, columns.count)))
        var after: Int64 = 0
        var copied = 0
        while true {
            let (rows, last) = try await source.rows(of: table, columns: columns, after: after, limit: rowsPerStatement)
            guard let last, !rows.isEmpty else { break }
            var bindings = PostgresBindings(capacity: rows.count * columns.count)
            var tuples: [String] = []
            tuples.reserveCapacity(rows.count)
            var index = 0
            for row in rows {
                var placeholders: [String] = []
                for (column, value) in zip(columns, row) {
                    try bind(value, as: types[column] ?? "text", into: &bindings)
                    index += 1
                    placeholders.append("$\(index)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            try await connection.execute(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(table) (\(columnList)) VALUES " + tuples.joined(separator: ", "),
                    binds: bindings))
            copied += rows.count
            after = last
        }
        return copied
    }

    /// Binds a SQLite value for a column of PostgreSQL type `type` (SQLite keeps booleans as 0/1).
    private static func bind(_ value: StoredValue, as type: String, into bindings: inout PostgresBindings) throws {
        switch (value, type) {
        case (.null, _): bindings.appendNull()
        case (.integer(let number), "boolean"): bindings.append(number != 0)
        case (.integer(let number), "integer"): bindings.append(Int32(truncatingIfNeeded: number))
        case (.integer(let number), _): bindings.append(number)
        case (.real(let number), _): bindings.append(number)
        case (.text(let text), _): bindings.append(text)
        case (.blob(let bytes), _): bindings.append(String(decoding: bytes, as: UTF8.self))
        }
    }
}
