import AdminAPI
import Foundation
import GatewayCore

/// Link-domain commands over the admin API.
extension AdminRemote {
    func linkDomains(tenantID: String) async throws -> [TenantDomain] {
        try await Self.all([TenantDomain].self) { cursor in
            let output = try await client.adminListLinkDomains(
                path: .init(tenant: tenantID), query: .init(cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            return (page.items, page.next)
        }
    }

    func addLinkDomain(
        tenantID: String, host: String, appIDs: [String], androidApps: [AndroidApp]
    ) async throws -> TenantDomain {
        let apps = androidApps.map {
            Components.Schemas.AndroidApp(packageName: $0.packageName, sha256CertFingerprints: $0.sha256CertFingerprints)
        }
        let body = Components.Schemas.LinkDomainAdd(
            host: host, appIDs: appIDs.isEmpty ? nil : appIDs, androidApps: apps.isEmpty ? nil : apps)
        let output = try await client.adminAddLinkDomain(path: .init(tenant: tenantID), body: .json(body))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: TenantDomain.self)
    }

    func removeLinkDomain(tenantID: String, host: String) async throws {
        let output = try await client.adminDeleteLinkDomain(path: .init(tenant: tenantID, host: host))
        guard case .noContent = output else { throw Self.refusal(output) }
    }
}
