/// Wraps another ``ProvisioningClient`` in the tenant's ``UpstreamGuard`` for `provisioning`.
public struct ResilientProvisioningClient: ProvisioningClient {
    private let base: any ProvisioningClient
    private let guards: UpstreamGuards

    public init(base: any ProvisioningClient, guards: UpstreamGuards) {
        self.base = base
        self.guards = guards
    }

    public func search(
        _ query: ProvisioningQuery, _ target: ProvisioningTarget, deadline: ContinuousClock.Instant
    ) async throws -> [ProvisioningMiniApp] {
        try await guards.guardFor(tenantID: target.tenantID, upstream: "provisioning").run(deadline: deadline) {
            try await base.search(query, target, deadline: deadline)
        }
    }

    public func miniApp(
        id: String, _ target: ProvisioningTarget, deadline: ContinuousClock.Instant
    ) async throws -> ProvisioningMiniApp {
        try await guards.guardFor(tenantID: target.tenantID, upstream: "provisioning").run(deadline: deadline) {
            try await base.miniApp(id: id, target, deadline: deadline)
        }
    }
}
