/// The tenant a fresh installation starts with, so `make run` serves something.
public enum DemoTenant {
    /// The demo tenant's id.
    public static let id = "demo"
    /// The demo tenant's display name.
    public static let displayName = "Demo Super App"
    /// The web domain seeded for the demo tenant's deep links, so the contract's
    /// `links/resolve` example (`https://links.example.com/miniapp/hello`) resolves.
    public static let linkHost = "links.example.com"

    /// Creates tenant `demo` ("Demo Super App", no upstream URLs yet) when the store has
    /// no tenants. Returns whether it created it (false also when another process won
    /// the race).
    @discardableResult
    public static func seedIfEmpty(store: any TenantStore, actor: String) async throws -> Bool {
        guard try await store.allTenants().isEmpty else { return false }
        do {
            try await store.create(Tenant(id: id, displayName: displayName), actor: actor)
            return true
        } catch TenantStoreError.alreadyExists {
            return false
        }
    }

    /// Gives tenant `demo` its deep-link domain ``linkHost`` (no app ids) unless the host
    /// already belongs to some tenant. Returns whether it added it.
    @discardableResult
    public static func seedLinkDomainIfFree(domains: any TenantDomainStore) async throws -> Bool {
        guard try await domains.domain(host: linkHost) == nil else { return false }
        do {
            try await domains.add(host: linkHost, tenantID: id, appIDs: [])
            return true
        } catch TenantDomainError.hostTaken {
            return false
        }
    }
}
