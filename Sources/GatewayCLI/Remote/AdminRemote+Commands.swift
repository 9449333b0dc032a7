import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The admin API operations gatewayctl commands go through, answering the same documents
/// the database path prints.
extension AdminRemote {
    func releasePolicy(tenantID: String, miniAppID: String) async throws -> ReleasePolicyView {
        let output = try await client.adminGetRelease(path: .init(tenant: tenantID, miniapp: miniAppID))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: ReleasePolicyView.self)
    }

    func releaseHistory(tenantID: String, miniAppID: String, limit: Int) async throws -> [ReleaseHistoryEntry] {
        guard limit <= AuditQuery.maxLimit else { throw CLIError.invalid("--limit is at most 500 over the admin API") }
        let output = try await client.adminReleaseHistory(
            path: .init(tenant: tenantID, miniapp: miniAppID), query: .init(limit: limit))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json.items, as: [ReleaseHistoryEntry].self)
    }

    func releaseAction(
        tenantID: String, miniAppID: String, _ request: Components.Schemas.ReleaseActionRequest
    ) async throws -> ReleasePolicyView {
        let output = try await Self.once { key in
            try await client.adminReleaseAction(
                path: .init(tenant: tenantID, miniapp: miniAppID), headers: .init(idempotencyKey: key), body: .json(request))
        }
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: ReleasePolicyView.self)
    }

    /// A page of the audit trail; `operatorName` is resolved to the operator's id first.
    func auditPage(
        chain: String?, operatorName: String?, resource: String?, verb: String?, since: String?, until: String?,
        cursor: Int64?, limit: Int
    ) async throws -> AuditListPage {
        var subject = operatorName
        if let name = operatorName, !name.hasPrefix("local:") {
            let found = try await client.adminGetOperator(path: .init(_operator: name))
            guard case .ok(let ok) = found else { throw Self.refusal(found) }
            subject = try ok.body.json.id
        }
        let output = try await client.adminListAudit(
            query: .init(
                tenant: chain, _operator: subject,
                resource: resource.flatMap(Operations.AdminListAudit.Input.Query.ResourcePayload.init(rawValue:)),
                verb: verb.flatMap(Operations.AdminListAudit.Input.Query.VerbPayload.init(rawValue:)),
                since: since.flatMap(RFC3339.date(from:)), until: until.flatMap(RFC3339.date(from:)),
                cursor: cursor.map(String.init), limit: limit))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: AuditListPage.self)
    }
}

/// What `audit list --json` prints, on both paths.
struct AuditListPage: Codable {
    var items: [AuditRecordDocument]
    var next: String?
}
