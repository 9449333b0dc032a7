import Foundation

/// What the admin API does to tenants: lists filtered by the caller's bindings, every config
/// field by merge patch at a revision, creation, suspension; each write recorded with its change.
extension AdminService {
    /// The tenants the call may see, by id, after `cursor` (an id), `limit` of them, with
    /// `status` when given.
    public func listTenants(
        _ call: AdminCall, cursor: String?, limit: Int, status: TenantStatus? = nil
    ) async throws -> (items: [Tenant], next: String?) {
        try Self.checkLimit(limit)
        let bindings = call.session.bindings
        // A platform-wide reader pages the store itself (one page read, however many tenants).
        let platformWide = bindings.filter { $0.tenantID == nil }
        if status == nil, !platformWide.isEmpty,
            AdminAuthorizer.decide(AdminPermission(.read, .tenant), tenantID: nil, bindings: platformWide) == .allowed
        {
            let found = try await tenants.tenants(after: cursor, limit: limit + 1)
            let page = Array(found.prefix(limit))
            return (page, found.count > limit ? page.last?.id : nil)
        }
        // Others hold roles in a few tenants: read those. `decide` answers notFound for a
        // tenant the call holds nothing in: only readable ones stay.
        let held = Set(bindings.compactMap(\.tenantID))
        var candidates: [Tenant] = []
        if platformWide.isEmpty {
            for id in held.sorted() { if let found = try await tenants.tenant(id: id) { candidates.append(found) } }
        } else {
            candidates = try await tenants.allTenants()
        }
        let readable = candidates.filter { tenant in
            AdminAuthorizer.decide(AdminPermission(.read, .tenant), tenantID: tenant.id, bindings: bindings) == .allowed
                && status.map { tenant.status == $0 } ?? true
        }
        return try Self.page(readable, key: \.id, cursor: cursor, limit: limit)
    }

    /// One tenant the call may read.
    public func tenant(_ call: AdminCall, id: String) async throws -> Tenant {
        try await authorize(call, AdminPermission(.read, .tenant), tenantID: id)
        return try await requireTenant(id)
    }

    /// Applies `patch` to a tenant, at `revision` when given (`If-Match`); recorded with the
    /// fields it changed (secrets masked).
    public func updateTenant(_ call: AdminCall, id: String, patch: TenantPatch, revision: Int64?) async throws -> Tenant {
        try await authorize(call, AdminPermission(.update, .tenant), tenantID: id)
        let now = clock.now()
        return try await writeTenant(call, id: id, verb: .update, revision: revision) { tenant in
            try patch.apply(to: &tenant, now: now)
        }
    }

    /// Who last changed the tenant's configuration, and when (`tenant:read`): the newest
    /// write among its 20 latest tenant records (refusals are recorded too), nil when none is.
    public func tenantLastChange(_ call: AdminCall, id: String) async throws -> (actor: String, at: Date)? {
        try await authorize(call, AdminPermission(.read, .tenant), tenantID: id)
        let page = try await trail.records(matching: AuditQuery(chain: id, resourceType: .tenant, limit: 20))
        return page.items.first { $0.outcome.status < 300 }.map { ($0.actor.name, $0.time) }
    }

    /// Suspends (stops serving) or resumes a tenant, at `revision` when given. A tenant
    /// already in that state is answered as it is, with nothing written.
    public func setTenantStatus(
        _ call: AdminCall, id: String, status: TenantStatus, revision: Int64?
    ) async throws -> Tenant {
        try await authorize(call, AdminPermission(.act, .tenant), tenantID: id)
        let current = try await requireTenant(id)
        if current.status == status, revision.map({ $0 == current.configVersion }) ?? true { return current }
        return try await writeTenant(call, id: id, verb: .act, revision: revision) { $0.status = status }
    }

    /// Creates a tenant (`tenant:create`, platform-wide): `id` and `displayName` with
    /// `patch`'s fields over the defaults; recorded with every field it was created with.
    public func createTenant(_ call: AdminCall, id: String, displayName: String, patch: TenantPatch) async throws -> Tenant {
        try await authorize(call, AdminPermission(.create, .tenant), tenantID: nil, resourceID: id)
        let now = clock.now()
        var tenant = Tenant(id: id, displayName: displayName, createdAt: now, updatedAt: now)
        do {
            try TenantID.validate(id)
            try patch.apply(to: &tenant, now: now)
        } catch {
            try await refused(call, .create, AuditResource(type: .tenant, tenant: nil, id: id), AuditOutcome(status: 422, code: "invalid_tenant"))
            throw AdminError.invalidTenant(error.description)
        }
        let actor = call.actor, requestID = call.requestID
        do {
            return try await tenants.create(tenant, actor: "operator:\(call.session.caller.name)") { created in
                TenantTrail.draft(old: nil, new: created, actor: actor, requestID: requestID, verb: .create, time: now)
            }
        } catch TenantStoreError.alreadyExists {
            try await refused(call, .create, AuditResource(type: .tenant, tenant: nil, id: id), AuditOutcome(status: 409, code: "tenant_exists"))
            throw AdminError.tenantExists(id)
        }
    }

    /// One tenant write: the stale revision refused (and recorded), the rules' refusals
    /// answered as `invalid_tenant`, the change recorded in the write's transaction.
    private func writeTenant(
        _ call: AdminCall, id: String, verb: AdminVerb, revision: Int64?,
        _ change: @escaping @Sendable (inout Tenant) throws -> Void
    ) async throws -> Tenant {
        do {
            return try await tenants.update(
                id: id, actor: "operator:\(call.session.caller.name)",
                trail: TenantTrail.change(actor: call.actor, requestID: call.requestID, verb: verb, time: clock.now())
            ) { tenant in
                if let revision, tenant.configVersion != revision {
                    throw AdminError.preconditionFailed(current: tenant.configVersion)
                }
                try change(&tenant)
            }
        } catch TenantStoreError.notFound {
            throw AdminError.tenantNotFound(id)
        } catch let error as TenantValidationError {
            try await refused(
                call, verb, AuditResource(type: .tenant, tenant: id, id: id), AuditOutcome(status: 422, code: "invalid_tenant"))
            throw AdminError.invalidTenant(error.description)
        } catch TenantStoreError.invalid(let reason) {
            throw AdminError.invalidTenant(reason)
        } catch AdminError.preconditionFailed(let current) {
            throw try await stale(call, verb, AuditResource(type: .tenant, tenant: id, id: id), current: current)
        }
    }
}
