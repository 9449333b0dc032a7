import Foundation

/// The audit record of a link-domain change, by the admin API or by gatewayctl on the
/// database: the domain before and after (`old` nil: the host is new; `new` nil: removed).
public enum LinkDomainTrail {
    public static func draft(
        _ old: TenantDomain?, _ new: TenantDomain?, actor: AuditActor, requestID: String?, time: Date
    ) -> AuditDraft {
        let domain = (new ?? old)!
        let verb: AdminVerb = old == nil ? .create : new == nil ? .delete : .update
        return AuditDraft(
            time: time, actor: actor, requestID: requestID, verb: verb,
            resource: AuditResource(type: .linkDomain, tenant: domain.tenantID, id: domain.host),
            outcome: new == nil ? AuditOutcome(status: 204) : .ok,
            change: AuditChange.between(old, new, ignoring: ["createdAt"]))
    }
}
