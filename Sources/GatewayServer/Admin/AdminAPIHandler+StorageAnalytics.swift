import AdminAPI
import Foundation
import GatewayCore

/// Users' storage and analytics reports on the admin API.
extension AdminAPIHandler {
    func adminStorageUsage(
        _ input: Operations.AdminStorageUsage.Input
    ) async throws -> Operations.AdminStorageUsage.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        try AdminInput.check(input.query.user, max: 255, "user")
        let report = try await service.storageUsage(
            try AdminScope.call(), tenantID: input.path.tenant, userID: input.query.user, cursor: input.query.cursor,
            limit: input.query.limit ?? 50)
        return .ok(.init(body: .json(try Self.wire(report, as: Components.Schemas.StorageUsage.self))))
    }

    func adminWipeStorage(_ input: Operations.AdminWipeStorage.Input) async throws -> Operations.AdminWipeStorage.Output
    {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(body.user, max: 255, "user")
        try AdminInput.check(body.miniApp, max: 128, "miniApp")
        let report = try await service.wipeStorage(
            try AdminScope.call(), tenantID: input.path.tenant, userID: body.user, miniAppID: body.miniApp)
        return .ok(.init(body: .json(try Self.wire(report, as: Components.Schemas.StorageWipeReport.self))))
    }

    func adminAnalyticsSummary(
        _ input: Operations.AdminAnalyticsSummary.Input
    ) async throws -> Operations.AdminAnalyticsSummary.Output {
        let now = Date()
        // Further back than 3,650 days counts the same events as 3,650 days (retention is
        // shorter); the answer names the time used.
        let since = max(input.query.since ?? now.addingTimeInterval(-86_400), now.addingTimeInterval(-3650 * 86_400))
        let report = try await service.analyticsSummary(
            try AdminScope.call(), tenantID: input.path.tenant, since: since)
        return .ok(.init(body: .json(try Self.wire(report, as: Components.Schemas.AnalyticsSummary.self))))
    }
}
