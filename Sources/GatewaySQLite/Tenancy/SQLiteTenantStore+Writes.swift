import Foundation
import GatewayCore
import GRDB

extension SQLiteTenantStore {
    @discardableResult
    public func create(_ tenant: Tenant, actor: String, trail: (@Sendable (Tenant) -> AuditDraft)?) async throws -> Tenant {
        let revision = try TenantRevision.created(tenant, actor: actor, now: StoreClock.now())
        let record = try TenantRecord(revision.tenant, sealer: sealer)
        try await pool.write { db in
            guard try !TenantRecord.exists(db, key: record.id) else {
                throw TenantStoreError.alreadyExists(record.id)
            }
            try record.insert(db)
            let draft = TenantTrail.record(revision.audit, old: nil, new: revision.tenant, custom: trail?(revision.tenant))
            _ = try SQLiteAuditTrail.append(draft, in: db)
            try Self.bumpChangeCounter(db, tenants: [record.id])
        }
        return revision.tenant
    }

    @discardableResult
    public func update(
        id: String, actor: String, trail: (@Sendable (Tenant, Tenant) -> AuditDraft)?,
        _ change: @Sendable (inout Tenant) throws -> Void
    ) async throws -> Tenant {
        let sealer = self.sealer
        return try await pool.write { db in
            guard let old = try TenantRecord.fetchOne(db, key: id)?.tenant(sealer: sealer) else {
                throw TenantStoreError.notFound(id)
            }
            let revision = try TenantRevision.updated(old, actor: actor, now: StoreClock.now(), change)
            try TenantRecord(revision.tenant, sealer: sealer).update(db)
            let draft = TenantTrail.record(revision.audit, old: old, new: revision.tenant, custom: trail?(old, revision.tenant))
            _ = try SQLiteAuditTrail.append(draft, in: db)
            try Self.bumpChangeCounter(db, tenants: [id])
            return revision.tenant
        }
    }

    public func delete(id: String, actor: String) async throws {
        let sealer = self.sealer
        try await pool.write { db in
            guard let record = try TenantRecord.fetchOne(db, key: id) else { throw TenantStoreError.notFound(id) }
            let old = try? record.tenant(sealer: sealer)
            try record.delete(db)
            let row = TenantRevision.deleted(id: id, configVersion: record.configVersion, actor: actor, now: StoreClock.now())
            _ = try SQLiteAuditTrail.append(TenantTrail.record(row, old: old, new: nil, custom: nil), in: db)
            try Self.bumpChangeCounter(db, tenants: [id])
        }
    }

    /// See ``TenantRevision/imported(_:over:actor:now:)``: validated before the single
    /// transaction starts; all or nothing.
    public func importTenants(_ tenants: [Tenant], actor: String) async throws {
        try TenantRevision.checkImport(tenants)
        let sealer = self.sealer
        try await pool.write { db in
            let now = StoreClock.now()
            for tenant in tenants {
                let old = try TenantRecord.fetchOne(db, key: tenant.id)?.tenant(sealer: sealer)
                let revision = TenantRevision.imported(tenant, over: old, actor: actor, now: now)
                try TenantRecord(revision.tenant, sealer: sealer).save(db)
                let draft = TenantTrail.record(revision.audit, old: old, new: revision.tenant, custom: nil)
                _ = try SQLiteAuditTrail.append(draft, in: db)
            }
            try Self.bumpChangeCounter(db, tenants: tenants.map(\.id))
        }
    }
}
