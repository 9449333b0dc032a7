import AdminAPI
import Foundation
import GatewayCore

/// Courier commands over the admin API.
extension AdminRemote {
    func courierMessages(tenantID: String, state: CourierState?, limit: Int) async throws -> [CourierMessageDocument] {
        let output = try await client.adminListCourierMessages(
            path: .init(tenant: tenantID),
            query: .init(state: state.flatMap { .init(rawValue: $0.rawValue) }, limit: limit))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try ok.body.json.items.map { try Self.document($0, as: CourierMessageDocument.self) }
    }
}
