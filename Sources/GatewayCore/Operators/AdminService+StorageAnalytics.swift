import Foundation

/// Users' secure storage (usage, wipes) and analytics reports on the admin API. The storage cap
/// itself is a tenant field (`storageMaxSizeInBytes`, a tenant merge patch).
extension AdminService {
    /// One page of the tenant's storage use per user and mini app (of `userID` only when given).
    public func storageUsage(
        _ call: AdminCall, tenantID: String, userID: String?, cursor: String?, limit: Int
    ) async throws -> StorageUsageReport {
        try await authorize(call, AdminPermission(.read, .storage), tenantID: tenantID)
        let tenant = try await requireTenant(tenantID)
        try Self.checkLimit(limit)
        let rows = try await storage.usage(
            tenantID: tenantID, userID: userID, after: cursor.map(StorageUsageReport.position), limit: limit + 1)
        let page = Array(rows.prefix(limit))
        return StorageUsageReport(
            tenant: tenantID, maxBytes: tenant.storageMaxSizeInBytes, usage: page,
            next: rows.count > limit ? page.last.map(StorageUsageReport.cursor(after:)) : nil)
    }

    /// Deletes every item `userID` stored for `miniAppID` (answers how many; 0 when none).
    public func wipeStorage(
        _ call: AdminCall, tenantID: String, userID: String, miniAppID: String
    ) async throws -> StorageWipeReport {
        try await authorize(call, AdminPermission(.delete, .storage), tenantID: tenantID, resourceID: userID)
        _ = try await requireTenant(tenantID)
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        let owner = UserMiniAppKey(tenantID: tenantID, userID: userID, miniAppID: miniAppID)
        let removed = try await storage.deleteAll(for: owner) { removed in
            StorageTrail.wipe(owner, removed: removed, actor: actor, requestID: requestID, time: now)
        }
        return StorageWipeReport(tenant: tenantID, user: userID, miniApp: miniAppID, deletedItems: removed)
    }

    /// The tenant's analytics events since `since`, counted per mini app, kind and type.
    public func analyticsSummary(
        _ call: AdminCall, tenantID: String, since: Date
    ) async throws -> AnalyticsSummaryReport {
        try await authorize(call, AdminPermission(.read, .analytics), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        return AnalyticsSummaryReport(
            tenant: tenantID, since: since, counts: try await analytics.summary(tenantID: tenantID, since: since))
    }
}

/// The audit record of a storage wipe, by the admin API or by gatewayctl on the database.
public enum StorageTrail {
    public static func wipe(
        _ owner: UserMiniAppKey, removed: Int, actor: AuditActor, requestID: String?, time: Date
    ) -> AuditDraft {
        AuditDraft(
            time: time, actor: actor, requestID: requestID, verb: .delete,
            resource: AuditResource(type: .storage, tenant: owner.tenantID, id: owner.userID + "/" + owner.miniAppID),
            outcome: .ok,
            change: AuditChange(
                before: .object(["items": .number(Double(removed))]), after: .object(["items": .number(0)])))
    }
}
