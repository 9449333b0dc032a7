import Foundation

/// The audit record of a link-domain change, by the admin API or by gatewayctl on the
/// database: the domain before and after (`old` nil: the host is new; `new` nil: removed).
public enum LinkDomainTrail {
    public static func draft(
        _ old: TenantDomain?, _ new: TenantDomain?, actor: AuditActor, requestID: String?, time: Date
    ) -> AuditDraft {
        let domain = (new ?? old)!
        return .documents(
            .linkDomain, tenant: domain.tenantID, id: domain.host, before: old, after: new, actor: actor,
            requestID: requestID, time: time)
    }
}
