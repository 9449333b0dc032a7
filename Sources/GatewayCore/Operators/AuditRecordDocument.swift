/// An audit record as `gatewayctl audit list --json` and the admin API (`AuditRecord` of
/// `OpenAPI/admin.yaml`) both write it: one shape, so the two paths print the same document.
public struct AuditRecordDocument: Codable, Sendable {
    public var id: String
    public var time: String
    public var requestId: String?
    public var actor: AuditActor
    public var verb: String
    public var resource: AuditResource
    public var outcome: AuditOutcome
    public var change: AuditChange?
    public var note: AuditNote?
    public var hash: String
    public var previousHash: String

    public init(_ r: AuditRecord) {
        id = String(r.id)
        time = RFC3339.millisecondString(from: r.time)
        requestId = r.requestID
        actor = r.actor
        verb = r.verb.rawValue
        resource = r.resource
        outcome = r.outcome
        change = r.change
        note = r.note
        hash = r.hash
        previousHash = r.previousHash
    }
}
