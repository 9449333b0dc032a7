import AdminAPI
import Foundation
import GatewayCore

/// Trusted-issuer commands over the admin API (the introspection secret goes in, never comes back).
extension AdminRemote {
    func trustedIssuers(tenantID: String) async throws -> [TrustedIssuerDocument] {
        try await Self.all([TrustedIssuerDocument].self) { cursor in
            let output = try await client.adminListTrustedIssuers(
                path: .init(tenant: tenantID), query: .init(cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            return (page.items, page.next)
        }
    }

    func trustIssuer(
        tenantID: String, _ body: Components.Schemas.TrustedIssuerSet
    ) async throws -> TrustedIssuerDocument {
        let output = try await client.adminTrustIssuer(path: .init(tenant: tenantID), body: .json(body))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: TrustedIssuerDocument.self)
    }

    func untrustIssuer(tenantID: String, issuer: String) async throws {
        let output = try await client.adminUntrustIssuer(path: .init(tenant: tenantID), query: .init(issuer: issuer))
        guard case .noContent = output else { throw Self.refusal(output) }
    }
}
