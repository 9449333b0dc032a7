/// State kept in memory per tenant beside the ``TenantDirectory`` (release policies, say)
/// and read again with it: when the directory loads everything, and when the change feed
/// names tenants. A follower that fails fails the directory's refresh, which is retried
/// from the same change token, so no change is skipped.
public protocol TenantStateFollower: Sendable {
    /// Reads the state of `tenantIDs` again; nil: of every tenant.
    func reload(tenantIDs: Set<String>?) async throws
}
