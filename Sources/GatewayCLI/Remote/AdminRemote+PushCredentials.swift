import AdminAPI
import Foundation
import GatewayCore

/// Push credential commands over the admin API (the key goes in, never comes back).
extension AdminRemote {
    func pushCredential(tenantID: String, provider: PushProvider) async throws -> PushCredentialDocument {
        let output = try await client.adminGetPushCredential(
            path: .init(tenant: tenantID, provider: provider == .apns ? .apns : .fcm))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: PushCredentialDocument.self)
    }

    func setPushCredential(
        tenantID: String, provider: PushProvider, _ body: Components.Schemas.PushCredentialSet
    ) async throws -> PushCredentialDocument {
        let output = try await client.adminSetPushCredential(
            path: .init(tenant: tenantID, provider: provider == .apns ? .apns : .fcm), body: .json(body))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: PushCredentialDocument.self)
    }

    func removePushCredential(tenantID: String, provider: PushProvider) async throws {
        let output = try await client.adminDeletePushCredential(
            path: .init(tenant: tenantID, provider: provider == .apns ? .apns : .fcm))
        guard case .noContent = output else { throw Self.refusal(output) }
    }
}
