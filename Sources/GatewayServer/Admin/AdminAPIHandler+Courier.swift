import AdminAPI
import Foundation
import GatewayCore

/// The courier outbox on the admin API.
extension AdminAPIHandler {
    func adminListCourierMessages(
        _ input: Operations.AdminListCourierMessages.Input
    ) async throws -> Operations.AdminListCourierMessages.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.courierMessages(
            try AdminScope.call(), tenantID: input.path.tenant,
            state: input.query.state.flatMap { CourierState(rawValue: $0.rawValue) }, cursor: input.query.cursor,
            limit: input.query.limit ?? 50)
        let items = try page.items.map { try Self.wire($0, as: Components.Schemas.CourierMessage.self) }
        return .ok(.init(body: .json(.init(items: items, next: page.next))))
    }
}
