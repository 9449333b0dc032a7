import Synchronization

/// Every tenant's release policies in memory: requests decide versions from here and
/// never read the store. It follows the ``TenantDirectory`` (``TenantStateFollower``): a
/// policy write bumps the tenant's change counter, so every replica reads that tenant's
/// policies again within one change notification or poll.
public final class ReleaseTable: TenantStateFollower {
    /// One tenant's policies by mini app id; replaced whole, never changed in place, so a
    /// lookup holds the lock only to copy one reference.
    private final class TenantPolicies: Sendable {
        let byMiniApp: [String: ReleasePolicy]
        init(_ byMiniApp: [String: ReleasePolicy]) { self.byMiniApp = byMiniApp }
    }

    private let store: any ReleasePolicyStore
    private let tenants = Mutex<[String: TenantPolicies]>([:])

    /// An empty table over `store`; filled by ``reload(tenantIDs:)``.
    public init(store: any ReleasePolicyStore) {
        self.store = store
    }

    /// The policy of one mini app, nil when it has none.
    public func policy(tenantID: String, miniAppID: String) -> ReleasePolicy? {
        tenants.withLock { $0[tenantID] }?.byMiniApp[miniAppID]
    }

    /// Whether any mini app of `tenantID` has a policy (lists skip all work when not).
    public func hasPolicies(tenantID: String) -> Bool {
        tenants.withLock { $0[tenantID] } != nil
    }

    /// Every policy of `tenantID`, by mini app id.
    public func policies(tenantID: String) -> [String: ReleasePolicy] {
        tenants.withLock { $0[tenantID] }?.byMiniApp ?? [:]
    }

    /// Every policy of every tenant (for metrics).
    public func allPolicies() -> [ReleasePolicy] {
        tenants.withLock { $0.values.map(\.self) }.flatMap(\.byMiniApp.values)
    }

    public func reload(tenantIDs: Set<String>?) async throws {
        var read: [String: [String: ReleasePolicy]] = [:]
        if let tenantIDs {
            for id in tenantIDs { read[id] = Self.byMiniApp(try await store.policies(tenantID: id)) }
        } else {
            for (tenantID, policies) in Dictionary(grouping: try await store.allPolicies(), by: \.tenantID) {
                read[tenantID] = Self.byMiniApp(policies)
            }
        }
        tenants.withLock { table in
            if tenantIDs == nil {
                for id in table.keys where read[id] == nil { read[id] = [:] }
            }
            for (id, policies) in read {
                // A concurrent reload that read later must not be undone: keep the newer revision.
                var merged = policies
                for (miniAppID, held) in table[id]?.byMiniApp ?? [:] {
                    if let fresh = merged[miniAppID], fresh.revision < held.revision { merged[miniAppID] = held }
                }
                table[id] = merged.isEmpty ? nil : TenantPolicies(merged)
            }
        }
    }

    private static func byMiniApp(_ policies: [ReleasePolicy]) -> [String: ReleasePolicy] {
        Dictionary(policies.map { ($0.miniAppID, $0) }, uniquingKeysWith: { _, last in last })
    }
}
