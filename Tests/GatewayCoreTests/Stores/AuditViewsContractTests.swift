import Foundation
import Testing

@testable import GatewayCore

/// Release history and the tenant log are views of the audit trail on both engines (issue 48):
/// every change is one record (the automatic halt and `gatewayctl` on the database included),
/// and the rows of the logs the trail replaced still read, after the trail's own records.
@Suite("Audit trail views contract")
struct AuditViewsContractTests {
    typealias Releases = ReleasePolicyStoreContractTests

    @Test(arguments: StoreBackend.available)
    func viewsReadTheTrailThenTheLegacyLogs(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        // Before the cutover: a record the legacy logs also hold, and their rows.
        let old = try await database.stores.releases.save(Releases.policy(), entry: Releases.entry(.set, reason: "old"))
        try await database.execute(
            """
            INSERT INTO release_history (tenant_id, mini_app_id, at_ms, actor, action, summary, reason)
            VALUES ('acme', 'app1', \(StoreClock.milliseconds(Releases.start)), 'ops', 'set', 'set', 'legacy')
            """)
        try await database.execute(
            """
            INSERT INTO tenant_audit (tenant_id, action, changed_fields, actor, at_ms, config_version)
            VALUES ('acme', 'update', '["displayName"]', 'legacy-user', 1, 7)
            """)
        try await database.execute("UPDATE audit_views SET cutover_id = (SELECT MAX(id) FROM audit_records)")

        // After it: a halt by the gateway, a pause by a local user, a tenant change.
        let service = ReleaseService(
            store: database.stores.releases, clock: WallClock { Releases.start.addingTimeInterval(60) })
        _ = try await service.halt(.init(tenantID: "acme", miniAppID: "app1", actor: "gateway", reason: "failures 3x"))
        try await database.stores.tenants.update(id: "acme", actor: "alice") { $0.displayName = "Acme Ltd" }

        let history = try await database.stores.releases.history(tenantID: "acme", miniAppID: "app1", limit: 10)
        #expect(history.map(\.action) == [.halt, .set] && history.map(\.reason) == ["failures 3x", "legacy"])
        #expect(history.first?.actor == "gateway" && old.revision == 1)
        #expect(try await database.stores.releases.history(tenantID: "acme", miniAppID: "app1", limit: 1).count == 1)
        let halt = try #require(
            try await database.stores.audit.records(matching: AuditQuery(chain: "acme", resourceType: .release)).items
                .first)
        #expect(halt.actor == .gateway && halt.verb == .act && halt.note?.summary == history.first?.summary)
        #expect(halt.resource.revisionBefore == 1 && halt.resource.revisionAfter == 2)

        let log = try await database.stores.tenants.auditLog(tenantID: "acme", limit: 10)
        #expect(log.map(\.action) == ["update", "update"] && log.map(\.actor) == ["alice", "legacy-user"])
        #expect(log.first?.changedFields == ["displayName"] && log.first?.configVersion == 2)
        #expect(try await database.stores.tenants.auditLog(tenantID: nil, limit: 1).map(\.actor) == ["alice"])
        let change = try #require(
            try await database.stores.audit.records(matching: AuditQuery(chain: "acme", resourceType: .tenant)).items
                .first)
        #expect(change.actor == .local(user: "alice") && change.change?.after == .object(["displayName": "Acme Ltd"]))
        #expect(try await AuditVerifier.verify(database.stores.audit, chain: "acme").broken == nil)
    }

    /// An erased user leaves release lists with a record that does not name them.
    @Test(arguments: StoreBackend.available)
    func forgettingAUserKeepsItOutOfTheTrail(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        _ = try await database.stores.releases.save(Releases.policy(), entry: Releases.entry(.set))
        let service = ReleaseService(store: database.stores.releases, clock: WallClock { Releases.start })
        let operatorActor = AuditActor(subject: "op-1", name: "alice", roles: ["tenant-admin@acme"])
        #expect(try await service.forget(userID: "qa-1", tenantID: "acme", actor: operatorActor) == ["app1"])
        let record = try #require(
            try await database.stores.audit.records(matching: AuditQuery(chain: "acme", resourceType: .release)).items
                .first)
        #expect(record.actor == operatorActor && record.note?.action == "forget" && record.change == nil)
        #expect(!record.note.debugDescription.contains("qa-1"))
        let entry = try #require(
            try await database.stores.releases.history(tenantID: "acme", miniAppID: "app1", limit: 1).first)
        #expect(entry.actor == "operator:alice" && entry.action == .forget)
    }
}
