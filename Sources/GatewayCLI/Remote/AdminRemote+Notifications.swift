import AdminAPI
import Foundation
import GatewayCore

/// Notification commands over the admin API.
extension AdminRemote {
    func sendNotification(
        tenantID: String, _ body: Components.Schemas.NotificationSend
    ) async throws -> NotificationSendReport {
        let output = try await Self.once { key in
            try await client.adminSendNotification(
                path: .init(tenant: tenantID), headers: .init(idempotencyKey: key), body: .json(body))
        }
        guard case .accepted(let accepted) = output else { throw Self.refusal(output) }
        return try Self.document(try accepted.body.json, as: NotificationSendReport.self)
    }

    func notification(tenantID: String, id: String) async throws -> NotificationStatusDocument {
        let output = try await client.adminGetNotification(path: .init(tenant: tenantID, notification: id))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: NotificationStatusDocument.self)
    }
}
