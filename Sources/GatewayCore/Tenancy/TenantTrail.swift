import Foundation

/// The audit-trail record of a tenant change, by the admin API or by gatewayctl on the
/// database (actor `local:<user>`): the fields that changed, before and after, as
/// `tenant show --json` prints them (secrets masked), written in the transaction of the change.
public enum TenantTrail {
    /// A record builder for ``TenantStore/update(id:actor:trail:_:)``.
    public static func change(
        actor: AuditActor, requestID: String? = nil, verb: AdminVerb, time: Date
    ) -> @Sendable (Tenant, Tenant) -> AuditDraft {
        { old, new in draft(old: old, new: new, actor: actor, requestID: requestID, verb: verb, time: time) }
    }

    /// The record of `old` becoming `new` (`old` nil: `new` was created, every field is after).
    public static func draft(
        old: Tenant?, new: Tenant, actor: AuditActor, requestID: String?, verb: AdminVerb, time: Date
    ) -> AuditDraft {
        let document = { (tenant: Tenant?) in tenant.flatMap { try? TenantDocument($0, secrets: .masked, sealer: nil) } }
        return AuditDraft(
            time: time, actor: actor, requestID: requestID, verb: verb,
            resource: AuditResource(
                type: .tenant, tenant: new.id, id: new.id, revisionBefore: old?.configVersion,
                revisionAfter: new.configVersion),
            outcome: .ok, change: AuditChange.between(document(old), document(new), ignoring: bookkeeping))
    }

    /// What every change moves (the revisions are in the record's resource).
    static let bookkeeping: Set<String> = ["configVersion", "updatedAt", "createdAt"]
}
