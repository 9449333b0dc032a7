import Foundation

/// Release history as a view of the audit trail (issue 48): every change to a policy, by an
/// operator, `gatewayctl` on the database or the automatic halt, is one record of the trail
/// with a note (action, summary, reason); the history of a mini app is its records after the
/// cutover, then the legacy `release_history` rows written before it.
public enum ReleaseTrail {
    /// The record of `entry` when nothing richer is at hand: no documents, the entry's actor.
    public static func draft(_ entry: ReleaseHistoryEntry, tenantID: String, miniAppID: String) -> AuditDraft {
        AuditDraft(
            time: entry.at, actor: AuditActor.labelled(entry.actor), verb: entry.action == .set ? .update : .act,
            resource: AuditResource(type: .release, tenant: tenantID, id: miniAppID), outcome: .ok,
            note: AuditNote(action: entry.action.rawValue, summary: entry.summary, reason: entry.reason))
    }

    /// The history entry a record of the trail shows (nil: not a release change).
    public static func entry(_ record: AuditRecord) -> ReleaseHistoryEntry? {
        guard record.resource.type == .release, let note = record.note,
            let action = ReleaseAction(rawValue: note.action)
        else { return nil }
        return ReleaseHistoryEntry(
            at: record.time, actor: record.actor.label, action: action, summary: note.summary ?? "",
            reason: note.reason)
    }

    /// The newest `limit` entries of one mini app: the trail's records after `cutover`, then
    /// `legacy` (the rows of the log the trail replaced, all older) up to `limit`.
    public static func history(
        trail: any AuditTrail, tenantID: String, miniAppID: String, limit: Int,
        legacy: (Int) async throws -> [ReleaseHistoryEntry]
    ) async throws -> [ReleaseHistoryEntry] {
        try await trail.viewEntries(
            matching: AuditQuery(chain: tenantID, resourceType: .release, resourceID: miniAppID), limit: limit, entry,
            legacy: legacy)
    }
}
