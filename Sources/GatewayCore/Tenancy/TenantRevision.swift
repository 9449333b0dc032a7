import Foundation

/// What a tenant write stores, decided once for every backend: the new row (version,
/// dates, validation) and its audit row. Backends only run the SQL in one transaction.
package enum TenantRevision {
    /// A new tenant: configVersion 1, created = updated = `now`.
    package static func created(
        _ tenant: Tenant, actor: String, now: Date
    ) throws -> (tenant: Tenant, audit: TenantAuditRecord) {
        var stored = tenant
        stored.configVersion = 1
        stored.createdAt = now
        stored.updatedAt = now
        try validate(stored)
        let fields = TenantField.changes(from: Tenant(id: "", displayName: ""), to: stored).filter { $0 != .id }
        return (
            stored,
            TenantAuditRecord(
                tenantID: stored.id, action: .create, fields: fields, actor: actor, at: now, configVersion: 1)
        )
    }

    /// `old` changed by `change`: version + 1, id and creation kept, validated.
    package static func updated(
        _ old: Tenant, actor: String, now: Date, _ change: (inout Tenant) throws -> Void
    ) throws -> (tenant: Tenant, audit: TenantAuditRecord) {
        var new = old
        try change(&new)
        guard new.id == old.id else { throw TenantStoreError.invalid("tenant id cannot be changed") }
        let fields = TenantField.changes(from: old, to: new)
        new.configVersion = old.configVersion + 1
        new.createdAt = old.createdAt
        new.updatedAt = now
        try validate(new)
        let action: TenantAuditAction = fields == [.status] ? (new.status == .suspended ? .suspend : .resume) : .update
        return (
            new,
            TenantAuditRecord(
                tenantID: old.id, action: action, fields: fields, actor: actor, at: now,
                configVersion: new.configVersion)
        )
    }

    /// Validates, mapping a validation failure to ``TenantStoreError/invalid(_:)``.
    static func validate(_ tenant: Tenant) throws {
        do {
            try TenantValidator.validate(tenant)
        } catch {
            throw TenantStoreError.invalid(error.description)
        }
    }

    /// The audit row of a deleted tenant.
    package static func deleted(id: String, configVersion: Int64, actor: String, now: Date) -> TenantAuditRecord {
        TenantAuditRecord(
            tenantID: id, action: .delete, fields: [], actor: actor, at: now, configVersion: configVersion)
    }

    /// Validates an import before any transaction: each tenant valid, no id twice.
    package static func checkImport(_ tenants: [Tenant]) throws {
        var seen = Set<String>()
        for tenant in tenants {
            try validate(tenant)
            guard seen.insert(tenant.id).inserted else {
                throw TenantStoreError.invalid("tenant '\(tenant.id)' appears more than once in the import")
            }
        }
    }

    /// An imported tenant over `old` (nil: new). New tenants keep their imported
    /// configVersion and dates; a tenant that exists gets `max(imported, stored + 1)`, so
    /// cache keys never repeat.
    package static func imported(
        _ tenant: Tenant, over old: Tenant?, actor: String, now: Date
    ) -> (tenant: Tenant, audit: TenantAuditRecord) {
        var tenant = tenant
        let fields: [TenantField]
        if let old {
            fields = TenantField.changes(from: old, to: tenant)
            tenant.configVersion = max(tenant.configVersion, old.configVersion + 1)
            tenant.updatedAt = now
        } else {
            fields = TenantField.changes(from: Tenant(id: "", displayName: ""), to: tenant).filter { $0 != .id }
        }
        tenant.configVersion = max(1, tenant.configVersion)
        return (
            tenant,
            TenantAuditRecord(
                tenantID: tenant.id, action: .import, fields: fields, actor: actor, at: now,
                configVersion: tenant.configVersion)
        )
    }
}

extension SigningKey {
    /// The sealing context of a private signing key at rest.
    package static func sealingContext(tenantID: String, kid: String) -> String {
        "tenant:\(tenantID):signing-key:\(kid)"
    }
}
