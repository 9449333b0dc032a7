import Foundation

/// The source of truth for tenant configuration (`SQLiteTenantStore` in GatewaySQLite by
/// default, or the PostgreSQL one).
///
/// Every write bumps the tenant's `configVersion`, stamps `updatedAt`, and records an
/// audit row naming the actor. Implementations are safe to use from many processes
/// (gatewayctl writes while the gateway reads).
public protocol TenantStore: Sendable {
    /// All tenants, sorted by id.
    func allTenants() async throws -> [Tenant]
    /// Up to `limit` tenants with ids after `after` (from the first when nil), sorted by id
    /// (byte order, as ``allTenants()``): one page without reading the rest.
    func tenants(after: String?, limit: Int) async throws -> [Tenant]
    /// One tenant, or nil when there is none with that id.
    func tenant(id: String) async throws -> Tenant?
    /// Inserts a new tenant (configVersion 1) and appends `trail(created)` to the operators'
    /// audit trail in the same transaction. Throws ``TenantStoreError/alreadyExists(_:)``.
    @discardableResult
    func create(_ tenant: Tenant, actor: String, trail: (@Sendable (Tenant) -> AuditDraft)?) async throws -> Tenant
    /// Applies `change` to the stored tenant inside one transaction, bumps configVersion, and
    /// appends `trail(old, new)` to the operators' audit trail in the same transaction (the
    /// admin API, issue 48). Throws ``TenantStoreError/notFound(_:)``; the closure may throw to
    /// abort (nothing written).
    @discardableResult
    func update(
        id: String, actor: String, trail: (@Sendable (Tenant, Tenant) -> AuditDraft)?,
        _ change: @Sendable (inout Tenant) throws -> Void
    ) async throws -> Tenant
    /// Removes a tenant and everything it owns. Throws ``TenantStoreError/notFound(_:)``.
    func delete(id: String, actor: String) async throws
    /// Replaces/creates all given tenants in ONE transaction: all or nothing.
    func importTenants(_ tenants: [Tenant], actor: String) async throws
    /// Audit rows, newest first.
    func auditLog(tenantID: String?, limit: Int) async throws -> [TenantAuditEntry]
    /// A number that changes whenever any tenant changes (from any process); cheap to read.
    func changeToken() async throws -> Int64
    /// The ids of the tenants changed (created, updated, deleted, or their localization or
    /// domains changed) after change token `token`, read together with the current token;
    /// nil when the store no longer remembers that far back (the caller reloads everything).
    func changedTenants(after token: Int64) async throws -> TenantChanges?
    /// Cheap liveness check for readiness probes.
    func ping() async throws
}

extension TenantStore {
    /// ``create(_:actor:trail:)`` without an audit-trail record.
    @discardableResult
    public func create(_ tenant: Tenant, actor: String) async throws -> Tenant {
        try await create(tenant, actor: actor, trail: nil)
    }

    /// ``update(id:actor:trail:_:)`` without an audit-trail record (`gatewayctl` on the database).
    @discardableResult
    public func update(id: String, actor: String, _ change: @Sendable (inout Tenant) throws -> Void) async throws -> Tenant {
        try await update(id: id, actor: actor, trail: nil, change)
    }
}

/// What a tenant store refuses.
public enum TenantStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(String)
    case alreadyExists(String)
    case invalid(String)

    public var description: String {
        switch self {
        case .notFound(let id): "tenant '\(id)' not found"
        case .alreadyExists(let id): "tenant '\(id)' already exists"
        case .invalid(let reason): reason
        }
    }
}

/// One audited change: what, when, by whom.
public struct TenantAuditEntry: Sendable, Equatable, Codable {
    public var id: Int64
    public var tenantID: String
    public var action: String
    /// Names of the fields that changed (never their secret values).
    public var changedFields: [String]
    public var actor: String
    public var at: Date
    public var configVersion: Int64

    public init(
        id: Int64, tenantID: String, action: String, changedFields: [String], actor: String, at: Date,
        configVersion: Int64
    ) {
        self.id = id
        self.tenantID = tenantID
        self.action = action
        self.changedFields = changedFields
        self.actor = actor
        self.at = at
        self.configVersion = configVersion
    }
}

/// Tenants changed since a change token (see ``TenantStore/changedTenants(after:)``).
public struct TenantChanges: Sendable, Equatable {
    /// The tenants to read again (a deleted one reads as nil).
    public var tenantIDs: Set<String>
    /// The change token these changes bring a reader up to.
    public var token: Int64

    public init(tenantIDs: Set<String>, token: Int64) {
        self.tenantIDs = tenantIDs
        self.token = token
    }

    /// How many changes a store keeps answering for; older tokens reload everything.
    public static let retained: Int64 = 10_000
}

extension TenantChanges {
    /// What a store answers from what it read in one snapshot: `current` token, the ids
    /// recorded after `token`, and the oldest change it still has.
    package static func answer(after token: Int64, current: Int64, ids: [String], oldest: Int64?) -> TenantChanges? {
        if token >= current { return TenantChanges(tenantIDs: [], token: current) }
        // The change right after `token` must still be recorded (else some were pruned, or
        // the database is from before changes were recorded).
        guard let oldest, oldest <= token + 1 else { return nil }
        return TenantChanges(tenantIDs: Set(ids), token: current)
    }
}
