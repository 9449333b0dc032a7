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
            outcome: .succeeded(verb), change: AuditChange.between(document(old), document(new), ignoring: bookkeeping))
    }

    /// What every change moves (the revisions are in the record's resource).
    static let bookkeeping: Set<String> = ["configVersion", "updatedAt", "createdAt"]

    /// The record a tenant write appends (the trail replaced `tenant_audit` in
    /// `v31-audit-views`): `custom` when the caller built one (the admin API, gatewayctl),
    /// else one naming `row`'s actor; either way with the note the tenant log shows.
    package static func record(_ row: TenantAuditRecord, old: Tenant?, new: Tenant?, custom: AuditDraft?) -> AuditDraft {
        let fields = row.entry.changedFields
        var draft =
            custom
            ?? {
                let document = { (tenant: Tenant?) in tenant.flatMap { try? TenantDocument($0, secrets: .masked, sealer: nil) } }
                let verb: AdminVerb =
                    switch TenantAuditAction(rawValue: row.action) {
                    case .delete: .delete
                    case .suspend, .resume: .act
                    case .create: .create
                    default: old == nil ? .create : .update
                    }
                return AuditDraft(
                    time: StoreClock.date(row.atMs), actor: AuditActor.labelled(row.actor), verb: verb,
                    resource: AuditResource(
                        type: .tenant, tenant: row.tenantID, id: row.tenantID, revisionBefore: old?.configVersion,
                        revisionAfter: new?.configVersion),
                    outcome: .succeeded(verb),
                    change: AuditChange.between(document(old), document(new), ignoring: bookkeeping))
            }()
        draft.note = AuditNote(action: row.action, summary: fields.isEmpty ? nil : fields.joined(separator: ", "))
        return draft
    }

    /// The tenant log entry a record of the trail shows (nil: not a tenant change).
    public static func entry(_ record: AuditRecord) -> TenantAuditEntry? {
        guard record.resource.type == .tenant, let note = record.note, let tenantID = record.resource.tenant else {
            return nil
        }
        return TenantAuditEntry(
            id: record.id, tenantID: tenantID, action: note.action,
            changedFields: note.summary.map { $0.components(separatedBy: ", ") } ?? [],
            actor: record.actor.label, at: record.time,
            configVersion: record.resource.revisionAfter ?? record.resource.revisionBefore ?? 0)
    }

    /// The newest `limit` changes of one tenant (nil: of all): the trail's records after its
    /// cutover, then `legacy` (the `tenant_audit` rows written before it) up to `limit`.
    public static func log(
        trail: any AuditTrail, tenantID: String?, limit: Int, legacy: (Int) async throws -> [TenantAuditEntry]
    ) async throws -> [TenantAuditEntry] {
        try await trail.viewEntries(
            matching: AuditQuery(chain: tenantID, resourceType: .tenant), limit: limit, entry, legacy: legacy)
    }
}
