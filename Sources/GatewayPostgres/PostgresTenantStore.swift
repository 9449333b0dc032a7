import Foundation
import GatewayCore
import GatewaySQLite
import PostgresNIO

/// ``TenantStore`` on PostgreSQL. Rows are the same ``TenantRecord`` as in SQLite, moved
/// as JSON (`row_to_json` out, `json_populate_record` in), so both backends flatten and
/// seal a tenant with one piece of code.
///
/// Each write is one transaction that locks the tenant row (`FOR UPDATE`), writes the new
/// version and its audit row and bumps `store_state.change_counter`: two `gatewayctl`
/// processes updating one tenant never lose an update, and every version has one audit row.
public final class PostgresTenantStore: TenantStore {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func allTenants() async throws -> [Tenant] {
        let rows = try await database.pool.column(
            "SELECT row_to_json(t)::text FROM tenants t ORDER BY id COLLATE \"C\"", as: String.self)
        return try rows.map(tenant)
    }

    public func tenants(after: String?, limit: Int) async throws -> [Tenant] {
        let (first, count) = (after ?? "", max(0, limit))
        let rows = try await database.pool.column(
            """
            SELECT row_to_json(t)::text FROM tenants t WHERE id COLLATE "C" > \(first) COLLATE "C"
            ORDER BY id COLLATE "C" LIMIT \(count)
            """, as: String.self)
        return try rows.map(tenant)
    }

    /// On the database's ``FreshConnection``: the tenant directory reads changed tenants here,
    /// and must not wait on a pool connection a partition cut (see there).
    public func tenant(id: String) async throws -> Tenant? {
        try await database.fresh.withConnection { try await Self.fetch($0, id: id, lock: false) }.map(tenant)
    }

    public func changeToken() async throws -> Int64 {
        try await database.pool.first("SELECT change_counter FROM store_state WHERE id = 1", as: Int64.self) ?? 0
    }

    public func ping() async throws {
        try await database.pool.execute("SELECT 1")
    }

    public func auditLog(tenantID: String?, limit: Int) async throws -> [TenantAuditEntry] {
        try await TenantTrail.log(trail: PostgresAuditTrail(database: database), tenantID: tenantID, limit: limit) {
            try await self.legacyAuditLog(tenantID: tenantID, limit: $0)
        }
    }

    /// `tenant_audit`: the log the trail replaced (`v31-audit-views`), read, no longer written.
    private func legacyAuditLog(tenantID: String?, limit: Int) async throws -> [TenantAuditEntry] {
        let limit = max(0, limit)
        let rows =
            if let tenantID {
                try await database.pool.column(
                    "SELECT row_to_json(a)::text FROM tenant_audit a WHERE tenant_id = \(tenantID) ORDER BY id DESC LIMIT \(limit)",
                    as: String.self)
            } else {
                try await database.pool.column(
                    "SELECT row_to_json(a)::text FROM tenant_audit a ORDER BY id DESC LIMIT \(limit)", as: String.self)
            }
        return try rows.map { try JSONDecoder().decode(TenantAuditRecord.self, from: Data($0.utf8)).entry }
    }

    @discardableResult
    public func create(_ tenant: Tenant, actor: String, trail: (@Sendable (Tenant) -> AuditDraft)?) async throws -> Tenant {
        let revision = try TenantRevision.created(tenant, actor: actor, now: StoreClock.now())
        let json = try Self.json(TenantRecord(revision.tenant, sealer: database.sealer))
        try await database.transaction { connection in
            let inserted = try await connection.execute("""
                INSERT INTO tenants SELECT * FROM json_populate_record(NULL::tenants, \(json)::json) ON CONFLICT (id) DO NOTHING RETURNING 1
                """)
            guard inserted == 1 else { throw TenantStoreError.alreadyExists(revision.tenant.id) }
            try await Self.finish(
                connection, revision.audit, old: nil, new: revision.tenant, custom: trail?(revision.tenant))
        }
        return revision.tenant
    }

    @discardableResult
    public func update(
        id: String, actor: String, trail: (@Sendable (Tenant, Tenant) -> AuditDraft)?,
        _ change: @Sendable (inout Tenant) throws -> Void
    ) async throws -> Tenant {
        let sealer = database.sealer
        // Unbounded: the transaction then runs in this task, so `change` never outlives the call.
        return try await withoutActuallyEscaping(change) { change in
            try await database.transaction(unbounded: true) { connection in
                guard let old = try await Self.fetch(connection, id: id, lock: true).map(self.tenant) else {
                    throw TenantStoreError.notFound(id)
                }
                let revision = try TenantRevision.updated(old, actor: actor, now: StoreClock.now(), change)
                try await Self.upsert(connection, json: try Self.json(TenantRecord(revision.tenant, sealer: sealer)))
                try await Self.finish(
                    connection, revision.audit, old: old, new: revision.tenant, custom: trail?(old, revision.tenant))
                return revision.tenant
            }
        }
    }

    public func delete(id: String, actor: String) async throws {
        try await database.transaction { connection in
            let old = try await Self.fetch(connection, id: id, lock: true).flatMap { try? self.tenant($0) }
            guard
                let version = try await connection.first(
                    "DELETE FROM tenants WHERE id = \(id) RETURNING config_version", as: Int64.self)
            else {
                throw TenantStoreError.notFound(id)
            }
            let row = TenantRevision.deleted(id: id, configVersion: version, actor: actor, now: StoreClock.now())
            try await Self.finish(connection, row, old: old, new: nil, custom: nil)
        }
    }

    public func importTenants(_ tenants: [Tenant], actor: String) async throws {
        try TenantRevision.checkImport(tenants)
        let sealer = database.sealer
        try await database.transaction { connection in
            let now = StoreClock.now()
            for tenant in tenants {
                let old = try await Self.fetch(connection, id: tenant.id, lock: true).map(self.tenant)
                let revision = TenantRevision.imported(tenant, over: old, actor: actor, now: now)
                try await Self.upsert(connection, json: try Self.json(TenantRecord(revision.tenant, sealer: sealer)))
                let draft = TenantTrail.record(revision.audit, old: old, new: revision.tenant, custom: nil)
                _ = try await PostgresAuditTrail.append(draft, on: connection)
            }
            try await Self.bumpChangeCounter(connection, tenants: tenants.map(\.id))
        }
    }

    // MARK: rows

    private func tenant(_ json: String) throws -> Tenant {
        try JSONDecoder().decode(TenantRecord.self, from: Data(json.utf8)).tenant(sealer: database.sealer)
    }

    private static func fetch(_ runner: some SQLRunner, id: String, lock: Bool) async throws -> String? {
        lock
            ? try await runner.first(
                "SELECT row_to_json(t)::text FROM tenants t WHERE id = \(id) FOR UPDATE", as: String.self)
            : try await runner.first("SELECT row_to_json(t)::text FROM tenants t WHERE id = \(id)", as: String.self)
    }

    private static func json(_ record: TenantRecord) throws -> String {
        String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
    }

    /// Every column of the record, `SET c = excluded.c` for the upsert.
    private static let assignments = TenantRecord.CodingKeys.allCases.filter { $0 != .id }
        .map { "\($0.rawValue) = excluded.\($0.rawValue)" }.joined(separator: ", ")

    private static func upsert(_ connection: PostgresConnection, json: String) async throws {
        try await connection.execute("""
            INSERT INTO tenants SELECT * FROM json_populate_record(NULL::tenants, \(json)::json)
            ON CONFLICT (id) DO UPDATE SET \(unescaped: assignments)
            """)
    }

    /// Appends the change's record to the audit trail (the tenant log is a view of it) and
    /// bumps the change counter.
    private static func finish(
        _ connection: PostgresConnection, _ row: TenantAuditRecord, old: Tenant?, new: Tenant?, custom: AuditDraft?
    ) async throws {
        _ = try await PostgresAuditTrail.append(TenantTrail.record(row, old: old, new: new, custom: custom), on: connection)
        try await bumpChangeCounter(connection, tenants: [row.tenantID])
    }

    /// The channel a change's token is announced on (`NOTIFY`, delivered at commit).
    static let changeChannel = "gateway_tenant_changes"

    /// Bumps the change counter, records which tenants the change touched and announces it
    /// on ``changeChannel``; call inside every write transaction gateways must notice. The
    /// counter row stays locked until commit, so tokens are handed out in commit order.
    static func bumpChangeCounter(_ connection: PostgresConnection, tenants: some Sequence<String>) async throws {
        let ids = Array(Set(tenants))
        try await connection.execute("""
            WITH bumped AS (UPDATE store_state SET change_counter = change_counter + 1 WHERE id = 1 RETURNING change_counter),
            recorded AS (INSERT INTO tenant_changes (change_seq, tenant_id) SELECT bumped.change_counter, t FROM bumped, unnest(\(ids)::text[]) AS t),
            pruned AS (DELETE FROM tenant_changes WHERE change_seq <= (SELECT change_counter FROM bumped) - \(TenantChanges.retained))
            SELECT pg_notify(\(changeChannel), change_counter::text) FROM bumped
            """)
    }

    public func changedTenants(after token: Int64) async throws -> TenantChanges? {
        // One statement: one snapshot for the token and the ids. On the ``FreshConnection``
        // (every poll tick runs it: a cut pool connection would hold the directory after healing).
        guard let (current, ids, oldest) = try await database.fresh.withConnection({ connection in
            try await connection.first("""
                SELECT (SELECT change_counter FROM store_state WHERE id = 1),
                       array(SELECT DISTINCT tenant_id FROM tenant_changes WHERE change_seq > \(token)),
                       (SELECT min(change_seq) FROM tenant_changes)
                """, as: (Int64, [String], Int64?).self)
        }) else { return nil }
        return TenantChanges.answer(after: token, current: current, ids: ids, oldest: oldest)
    }
}
