import Foundation

/// The audit-trail record of a client change, by the admin API or by gatewayctl on the
/// database (actor `local:<user>`): the settings that changed, before and after (a client's
/// document holds no secret, only the store keeps its hash).
public enum ClientTrail {
    /// The record of a client change: the members that changed, before and after.
    public static func draft(
        _ old: OAuthClient?, _ new: OAuthClient?, actor: AuditActor, requestID: String?, verb: AdminVerb, time: Date
    ) -> AuditDraft {
        let client = new ?? old
        return AuditDraft(
            time: time, actor: actor, requestID: requestID, verb: verb,
            resource: AuditResource(
                type: .client, tenant: client?.tenantID, id: client?.clientID, revisionBefore: old?.currentRevision,
                revisionAfter: new?.currentRevision),
            outcome: .succeeded(verb), change: AuditChange.between(old, new, ignoring: ["revision"]))
    }
}
