import Foundation

/// What the admin API decides (issue 48): whether the caller may, what it sees, and the
/// trail of every write and every refusal. Handlers translate to and from the wire only.
public struct AdminService: Sendable {
    let tenants: any TenantStore
    let releases: any ReleasePolicyStore
    let trail: any AuditTrail
    let idempotency: any AdminIdempotencyStore
    let operators: any OperatorStore
    let clients: any ClientStore
    let signingKeys: any SigningKeyStore
    let users: any AuthStore
    let hasher: PasswordHasher
    let pushCredentialStore: any PushCredentialStore
    let domains: any TenantDomainStore
    let localization: any LocalizationStore
    let outbox: any PushOutboxStore
    let courier: any CourierOutbox
    let storage: any SecureStorageStore
    let analytics: any AnalyticsStore
    let jobs: any AdminJobStore
    /// The imports this replica runs now (``concurrentImports`` at most).
    let importSlots = CountingSlots(limit: AdminService.concurrentImports)
    let clock: WallClock

    /// The admin API's decisions over the installation's stores.
    /// - Parameter hasher: hashes passwords of users created or changed through the API.
    public init(stores: DurableStores, clock: WallClock = .system, hasher: PasswordHasher = PasswordHasher()) {
        self.tenants = stores.tenants
        self.releases = stores.releases
        self.trail = stores.audit
        self.idempotency = stores.idempotency
        self.operators = stores.operators
        self.clients = stores.auth
        self.signingKeys = stores.auth
        self.users = stores.auth
        self.hasher = hasher
        self.pushCredentialStore = stores.pushCredentials
        self.domains = stores.domains
        self.localization = stores.localization
        self.outbox = stores.outbox
        self.courier = stores.courier
        self.storage = stores.storage
        self.analytics = stores.analytics
        self.jobs = stores.jobs
        self.clock = clock
    }

    /// Throws unless the call may do `permission` (on `tenantID`'s resources; nil: the
    /// platform's). A refusal is recorded before it is answered.
    public func authorize(
        _ call: AdminCall, _ permission: AdminPermission, tenantID: String?, miniAppID: String? = nil,
        resourceID: String? = nil
    ) async throws {
        let decision = AdminAuthorizer.decide(
            permission, tenantID: tenantID, miniAppID: miniAppID, bindings: call.session.bindings)
        let refusal: (AdminError, AuditOutcome, String?)
        switch decision {
        case .allowed: return
        case .forbidden(let missing):
            refusal = (.forbidden(missing: missing), AuditOutcome(status: 403, code: "forbidden"), tenantID)
        case .notFound:
            // Recorded in the platform's chain: the tenant's own chain is not the caller's to extend.
            refusal = (.tenantNotFound(tenantID ?? ""), AuditOutcome(status: 404, code: "tenant_not_found"), nil)
        }
        try await trail.append(
            AuditDraft(
                time: clock.now(), actor: call.actor, requestID: call.requestID, verb: permission.verb,
                resource: AuditResource(type: permission.resource, tenant: refusal.2, id: resourceID ?? tenantID),
                outcome: refusal.1))
        throw refusal.0
    }

    /// A list's page size, 1-500, or a bad request.
    static func checkLimit(_ limit: Int) throws {
        guard (1...AuditQuery.maxLimit).contains(limit) else { throw AdminError.badRequest("limit must be 1-500") }
    }

    /// One page of `items` (sorted by `key`): those after `cursor`, `limit` of them, and the
    /// `next` cursor when more follow.
    static func page<Item>(
        _ items: [Item], key: (Item) -> String, cursor: String?, limit: Int
    ) throws -> (items: [Item], next: String?) {
        try checkLimit(limit)
        let after = cursor.map { cursor in items.filter { key($0) > cursor } } ?? items
        let page = Array(after.prefix(limit))
        return (page, after.count > limit ? page.last.map(key) : nil)
    }

    /// Records a write refused after it was authorized (a stale revision, a rule it breaks).
    func refused(_ call: AdminCall, _ verb: AdminVerb, _ resource: AuditResource, _ outcome: AuditOutcome) async throws {
        try await trail.append(
            AuditDraft(
                time: clock.now(), actor: call.actor, requestID: call.requestID, verb: verb, resource: resource,
                outcome: outcome))
    }

    /// Records a write refused because `resource` moved on to revision `current` since the
    /// caller's `If-Match`, and answers the 412 to throw.
    func stale(_ call: AdminCall, _ verb: AdminVerb, _ resource: AuditResource, current: Int64) async throws -> AdminError {
        var moved = resource
        moved.revisionBefore = current
        try await refused(call, verb, moved, AuditOutcome(status: 412, code: "precondition_failed"))
        return .preconditionFailed(current: current)
    }

    /// The tenant `id`, which must exist (a platform-wide operator asking for another answers 404).
    func requireTenant(_ id: String) async throws -> Tenant {
        guard let found = try await tenants.tenant(id: id) else { throw AdminError.tenantNotFound(id) }
        return found
    }

    /// A page of the trail the call may read: one tenant's chain (`audit:read` there), or
    /// every chain and the platform's (`audit:read` platform-wide).
    public func audit(_ call: AdminCall, query: AuditQuery) async throws -> AuditPage {
        let tenantID = query.chain == AuditChain.platform ? nil : query.chain
        try await authorize(call, AdminPermission(.read, .audit), tenantID: tenantID)
        var query = query
        // The actor filter takes an operator's name, as people know them (issue 62 §3): records
        // name the operator's id, which a rename never changes.
        if let subject = query.subject, OperatorName.isValid(subject),
            let named = try await operators.findOperator(named: subject)
        {
            query.subject = named.id
        }
        return try await trail.records(matching: query)
    }
}

extension AdminService {
    /// One record of the trail (`audit:read` on its chain) and whether it holds where it
    /// stands (``AuditVerifier/link(_:chain:sequence:)``). A record of a chain the call may not
    /// read answers as the list does: 403, or 404 for a tenant it holds nothing in.
    public func auditRecord(_ call: AdminCall, id: Int64) async throws -> (
        record: AuditRecord, link: AuditVerifier.Break?
    ) {
        guard id > 0, id < .max,
            let record = try await trail.records(matching: AuditQuery(cursor: id + 1, limit: 1)).items.first,
            record.id == id
        else { throw AdminError.auditRecordNotFound(id) }
        try await authorize(
            call, AdminPermission(.read, .audit), tenantID: record.chain == AuditChain.platform ? nil : record.chain)
        return (record, try await AuditVerifier.link(trail, chain: record.chain, sequence: record.sequence))
    }
}
