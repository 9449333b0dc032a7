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
        let (before, after) = changedFields(old, new)
        return AuditDraft(
            time: time, actor: actor, requestID: requestID, verb: verb,
            resource: AuditResource(
                type: .tenant, tenant: new.id, id: new.id, revisionBefore: old?.configVersion,
                revisionAfter: new.configVersion),
            outcome: .ok, change: AuditChange(before: before, after: after))
    }

    /// What every change moves (the revisions are in the record's resource).
    static let bookkeeping: Set<String> = ["configVersion", "updatedAt", "createdAt"]

    /// The top-level fields of the masked documents that differ, bookkeeping aside.
    static func changedFields(_ old: Tenant?, _ new: Tenant) -> (JSONValue?, JSONValue) {
        guard case .object(let after) = document(new) else { return (nil, .null) }
        guard let old else { return (nil, .object(after.filter { !bookkeeping.contains($0.key) })) }
        guard case .object(let before) = document(old) else { return (.null, .null) }
        let keys = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] && !bookkeeping.contains($0) }
        return (
            .object(before.filter { keys.contains($0.key) }), .object(after.filter { keys.contains($0.key) })
        )
    }

    private static func document(_ tenant: Tenant) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.millisecondString(from: date))
        }
        guard let document = try? TenantDocument(tenant, secrets: .masked, sealer: nil),
            let data = try? encoder.encode(document),
            let value = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return value
    }
}
