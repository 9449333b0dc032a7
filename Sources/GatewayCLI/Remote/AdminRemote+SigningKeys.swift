import AdminAPI
import Foundation
import GatewayCore

/// Signing-key commands over the admin API.
extension AdminRemote {
    /// Every key of the tenant, newest first (as the store lists them), paging 500 at a time.
    func signingKeys(tenantID: String) async throws -> [SigningKeyDocument] {
        let found = try await Self.all([SigningKeyDocument].self) { cursor in
            let output = try await client.adminListSigningKeys(
                path: .init(tenant: tenantID), query: .init(cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try ok.body.json
            return (page.items, page.next)
        }
        return found.sorted(by: SigningKeyDocument.newestFirst)
    }

    /// Adds a key; one `Idempotency-Key` for the call and its one retry, so one key is added.
    func rotateSigningKey(
        tenantID: String, algorithm: SigningKey.Algorithm, rsaBits: Int, signAfter: Int
    ) async throws -> SigningKeyDocument {
        let body = try Self.document(
            JSONValue.object([
                "alg": .string(algorithm.rawValue), "signAfterSeconds": .number(Double(signAfter)),
                "rsaBits": .number(Double(rsaBits)),
            ]), as: Components.Schemas.SigningKeyRotation.self)
        let output = try await Self.once { key in
            try await client.adminRotateSigningKey(
                path: .init(tenant: tenantID), headers: .init(idempotencyKey: key), body: .json(body))
        }
        guard case .created(let created) = output else { throw Self.refusal(output) }
        return try Self.document(try created.body.json, as: SigningKeyDocument.self)
    }

    /// Retires a key, once for the call and its one retry.
    func retireSigningKey(tenantID: String, kid: String, immediately: Bool) async throws -> SigningKeyRetirement {
        let output = try await Self.once { key in
            try await client.adminSigningKeyAction(
                path: .init(tenant: tenantID, kid: kid), headers: .init(idempotencyKey: key),
                body: .json(.init(action: .retire, immediately: immediately)))
        }
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: SigningKeyRetirement.self)
    }
}
