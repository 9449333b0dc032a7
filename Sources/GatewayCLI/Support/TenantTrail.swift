import Foundation
import GatewayCore

/// The audit-trail record of a tenant change made with gatewayctl on the database (actor
/// `local:<user>`): the fields that changed, before and after, as `tenant show --json` prints
/// them (secrets masked), written in the transaction of the change.
enum TenantTrail {
    static func local(user: String, verb: AdminVerb) -> @Sendable (Tenant, Tenant) -> AuditDraft {
        let time = Date()
        return { old, new in
            let (before, after) = changedFields(old, new)
            return AuditDraft(
                time: time, actor: .local(user: user), verb: verb,
                resource: AuditResource(
                    type: .tenant, tenant: new.id, id: new.id, revisionBefore: old.configVersion,
                    revisionAfter: new.configVersion),
                outcome: .ok, change: AuditChange(before: before, after: after))
        }
    }

    /// What every change moves (the revisions are in the record's resource).
    static let bookkeeping: Set<String> = ["configVersion", "updatedAt", "createdAt"]

    /// The top-level fields of the masked documents that differ, bookkeeping aside.
    static func changedFields(_ old: Tenant, _ new: Tenant) -> (JSONValue, JSONValue) {
        guard case .object(let before) = document(old), case .object(let after) = document(new) else { return (.null, .null) }
        let keys = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] && !bookkeeping.contains($0) }
        return (
            .object(before.filter { keys.contains($0.key) }), .object(after.filter { keys.contains($0.key) })
        )
    }

    private static func document(_ tenant: Tenant) -> JSONValue {
        guard let document = try? TenantDocument(tenant, secrets: .masked, sealer: nil),
            let data = try? JSONCoding.encoder().encode(document),
            let value = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return value
    }
}
