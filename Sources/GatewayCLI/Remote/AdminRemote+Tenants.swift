import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// Tenant commands over the admin API, answering the documents the database path prints.
extension AdminRemote {
    /// Tenants after `after` with `status`, at most `limit` (nil: all), paging through the
    /// API 500 at a time; `more` when some were left out.
    func tenants(after: String?, status: TenantStatus?, limit: Int?) async throws -> (tenants: [TenantDocument], more: Bool) {
        var found: [TenantDocument] = []
        var cursor = after
        while true {
            let want = min(AuditQuery.maxLimit, limit.map { $0 + 1 - found.count } ?? AuditQuery.maxLimit)
            let output = try await client.adminListTenants(
                query: .init(
                    cursor: cursor, limit: want,
                    status: status.flatMap { Operations.AdminListTenants.Input.Query.StatusPayload(rawValue: $0.rawValue) }))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            found += try Self.document(page.items, as: [TenantDocument].self)
            if let limit, found.count > limit { return (Array(found.prefix(limit)), true) }
            guard let next = page.next else { return (found, false) }
            cursor = next
        }
    }

    func tenant(id: String) async throws -> TenantDocument {
        let output = try await client.adminGetTenant(path: .init(tenant: id))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: TenantDocument.self)
    }

    /// Applies `patch` at the revision `revision` (the one the caller read).
    func updateTenant(id: String, patch: TenantPatch, revision: Int64) async throws -> TenantDocument {
        let output = try await client.adminPatchTenant(
            path: .init(tenant: id), headers: .init(ifMatch: "\"\(revision)\""),
            body: .applicationMergePatchJson(try Self.document(patch, as: Components.Schemas.TenantPatch.self)))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: TenantDocument.self)
    }

    /// Creates a tenant; one key for the call and its one retry, so it is created once.
    func createTenant(id: String, patch: TenantPatch) async throws -> TenantDocument {
        guard case .object(var members) = try JSONCoding.decoder().decode(JSONValue.self, from: JSONCoding.encoder().encode(patch))
        else { throw CLIError.failure("the tenant patch is not a JSON object") }
        members["id"] = .string(id)
        let body = try Self.document(JSONValue.object(members), as: Components.Schemas.TenantCreate.self)
        let output = try await Self.once { key in
            try await client.adminCreateTenant(headers: .init(idempotencyKey: key), body: .json(body))
        }
        guard case .created(let created) = output else { throw Self.refusal(output) }
        return try Self.document(try created.body.json, as: TenantDocument.self)
    }

    func setTenantStatus(id: String, _ status: TenantStatus) async throws -> TenantDocument {
        let output = try await client.adminTenantAction(
            path: .init(tenant: id), body: .json(.init(action: status == .suspended ? .suspend : .resume)))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: TenantDocument.self)
    }
}
