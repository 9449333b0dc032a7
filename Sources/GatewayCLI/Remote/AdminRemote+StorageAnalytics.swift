import AdminAPI
import Foundation
import GatewayCore

/// Storage and analytics commands over the admin API.
extension AdminRemote {
    func storageUsage(tenantID: String, userID: String?) async throws -> StorageUsageReport {
        var report: StorageUsageReport?
        var cursor: String?
        repeat {
            let output = try await client.adminStorageUsage(
                path: .init(tenant: tenantID), query: .init(user: userID, cursor: cursor, limit: AuditQuery.maxLimit))
            guard case .ok(let ok) = output else { throw Self.refusal(output) }
            let page = try Self.document(try ok.body.json, as: StorageUsageReport.self)
            report =
                report.map {
                    StorageUsageReport(tenant: $0.tenant, maxBytes: $0.maxBytes, usage: $0.usage + page.usage)
                } ?? page
            cursor = page.next
        } while cursor != nil
        report?.next = nil
        return report!
    }

    func wipeStorage(tenantID: String, userID: String, miniAppID: String) async throws -> StorageWipeReport {
        let output = try await client.adminWipeStorage(
            path: .init(tenant: tenantID), body: .json(.init(user: userID, miniApp: miniAppID)))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: StorageWipeReport.self)
    }

    func analyticsSummary(tenantID: String, since: Date) async throws -> AnalyticsSummaryReport {
        let output = try await client.adminAnalyticsSummary(path: .init(tenant: tenantID), query: .init(since: since))
        guard case .ok(let ok) = output else { throw Self.refusal(output) }
        return try Self.document(try ok.body.json, as: AnalyticsSummaryReport.self)
    }
}
