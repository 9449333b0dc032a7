import Foundation
import GRDB

extension SQLiteTenantStore {
    @discardableResult
    public func create(_ tenant: Tenant, actor: String) async throws -> Tenant {
        var stored = tenant
        let now = StoreClock.now()
        stored.configVersion = 1
        stored.createdAt = now
        stored.updatedAt = now
        try Self.validate(stored)
        let record = try TenantRecord(stored, sealer: sealer)
        let created = stored
        try await pool.write { db in
            guard try !TenantRecord.exists(db, key: created.id) else {
                throw TenantStoreError.alreadyExists(created.id)
            }
            try record.insert(db)
            var audit = TenantAuditRecord(
                tenantID: created.id, action: .create, fields: TenantField.changes(from: Tenant(id: "", displayName: ""), to: created).filter { $0 != .id },
                actor: actor, at: now, configVersion: 1
            )
            try audit.insert(db)
            try Self.bumpChangeCounter(db)
        }
        return created
    }

    @discardableResult
    public func update(id: String, actor: String, _ change: @Sendable (inout Tenant) throws -> Void) async throws -> Tenant {
        let sealer = self.sealer
        return try await pool.write { db in
            guard let old = try TenantRecord.fetchOne(db, key: id)?.tenant(sealer: sealer) else {
                throw TenantStoreError.notFound(id)
            }
            var new = old
            try change(&new)
            guard new.id == old.id else { throw TenantStoreError.invalid("tenant id cannot be changed") }
            let fields = TenantField.changes(from: old, to: new)
            new.configVersion = old.configVersion + 1
            new.createdAt = old.createdAt
            new.updatedAt = StoreClock.now()
            try Self.validate(new)
            try TenantRecord(new, sealer: sealer).update(db)
            let action: TenantAuditAction = fields == [.status]
                ? (new.status == .suspended ? .suspend : .resume) : .update
            var audit = TenantAuditRecord(
                tenantID: id, action: action, fields: fields, actor: actor,
                at: new.updatedAt, configVersion: new.configVersion
            )
            try audit.insert(db)
            try Self.bumpChangeCounter(db)
            return new
        }
    }

    public func delete(id: String, actor: String) async throws {
        try await pool.write { db in
            guard let record = try TenantRecord.fetchOne(db, key: id) else { throw TenantStoreError.notFound(id) }
            try record.delete(db)
            var audit = TenantAuditRecord(
                tenantID: id, action: .delete, fields: [], actor: actor,
                at: StoreClock.now(), configVersion: record.configVersion
            )
            try audit.insert(db)
            try Self.bumpChangeCounter(db)
        }
    }

    /// New tenants keep their imported configVersion and dates; a tenant that already
    /// exists is replaced with configVersion `max(imported, stored + 1)` so cache keys
    /// never repeat. Everything is validated before the single transaction starts.
    public func importTenants(_ tenants: [Tenant], actor: String) async throws {
        var seen = Set<String>()
        for tenant in tenants {
            try Self.validate(tenant)
            guard seen.insert(tenant.id).inserted else {
                throw TenantStoreError.invalid("tenant '\(tenant.id)' appears more than once in the import")
            }
        }
        let sealer = self.sealer
        try await pool.write { db in
            let now = StoreClock.now()
            for var tenant in tenants {
                let old = try TenantRecord.fetchOne(db, key: tenant.id)?.tenant(sealer: sealer)
                let fields: [TenantField]
                if let old {
                    fields = TenantField.changes(from: old, to: tenant)
                    tenant.configVersion = max(tenant.configVersion, old.configVersion + 1)
                    tenant.updatedAt = now
                } else {
                    fields = TenantField.changes(from: Tenant(id: "", displayName: ""), to: tenant).filter { $0 != .id }
                }
                tenant.configVersion = max(1, tenant.configVersion)
                try TenantRecord(tenant, sealer: sealer).save(db)
                var audit = TenantAuditRecord(
                    tenantID: tenant.id, action: .import, fields: fields, actor: actor,
                    at: now, configVersion: tenant.configVersion
                )
                try audit.insert(db)
            }
            try Self.bumpChangeCounter(db)
        }
    }
}
