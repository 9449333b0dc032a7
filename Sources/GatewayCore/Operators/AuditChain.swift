import Crypto
import Foundation

/// How records are chained (issue 48): each record's body, a JSON document with sorted keys
/// that includes its chain, its sequence and the previous record's hash, is stored as text
/// exactly as hashed; its hash is the SHA-256 of that text. Altering a body breaks its hash,
/// removing or reordering records breaks the sequence or the link to the previous hash.
/// Anyone holding an export can verify it: no key is involved.
public enum AuditChain {
    /// The chain of records about no tenant (operators, platform-wide bindings, tenants created).
    public static let platform = "*"
    /// What the first record of a chain names as its previous hash.
    public static let genesis = String(repeating: "0", count: 64)

    /// The sealed form of a record: what is hashed and stored.
    struct Body: Codable, Equatable {
        var chain: String
        var sequence: Int64
        var timeMs: Int64
        var actor: AuditActor
        var requestID: String?
        var verb: AdminVerb
        var resource: AuditResource
        var outcome: AuditOutcome
        var change: AuditChange?
        var note: AuditNote?
        var previousHash: String
    }

    /// The body text and its hash for `draft` at `sequence` of `chain` after `previousHash`.
    public static func seal(
        _ draft: AuditDraft, chain: String, sequence: Int64, previousHash: String
    ) throws -> (body: String, hash: String) {
        let body = Body(
            chain: chain, sequence: sequence, timeMs: StoreClock.milliseconds(draft.time), actor: draft.actor,
            requestID: draft.requestID, verb: draft.verb, resource: draft.resource, outcome: draft.outcome,
            change: draft.change, note: draft.note, previousHash: previousHash)
        let text = String(decoding: try encoder.encode(body), as: UTF8.self)
        return (text, hash(text))
    }

    /// SHA-256 of `body`'s UTF-8 bytes, lowercase hex.
    public static func hash(_ body: String) -> String {
        LowercaseHex.string(SHA256.hash(data: Data(body.utf8)))
    }

    /// The record a stored row holds (nil: the body is not a record).
    public static func record(_ row: AuditRow) -> AuditRecord? {
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(row.body.utf8)) else { return nil }
        return AuditRecord(
            id: row.id, chain: body.chain, sequence: body.sequence, timeMs: body.timeMs, actor: body.actor,
            requestID: body.requestID, verb: body.verb, resource: body.resource, outcome: body.outcome,
            change: body.change, note: body.note, previousHash: body.previousHash, hash: row.hash)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// One stored row of the trail: the sealed body and the columns lists filter on, which
/// ``AuditVerifier`` checks against the body.
public struct AuditRow: Sendable, Equatable {
    public var id: Int64
    public var chain: String
    public var sequence: Int64
    public var timeMs: Int64
    public var subject: String
    public var verb: String
    public var resourceType: String
    public var resourceID: String?
    public var body: String
    public var hash: String

    public init(
        id: Int64, chain: String, sequence: Int64, timeMs: Int64, subject: String, verb: String,
        resourceType: String, resourceID: String?, body: String, hash: String
    ) {
        self.id = id
        self.chain = chain
        self.sequence = sequence
        self.timeMs = timeMs
        self.subject = subject
        self.verb = verb
        self.resourceType = resourceType
        self.resourceID = resourceID
        self.body = body
        self.hash = hash
    }

    /// The row a store writes for `draft` sealed at `sequence` (its `id` assigned on insert).
    public static func sealing(
        _ draft: AuditDraft, sequence: Int64, previousHash: String
    ) throws -> AuditRow {
        let chain = draft.chain
        let (body, hash) = try AuditChain.seal(draft, chain: chain, sequence: sequence, previousHash: previousHash)
        return AuditRow(
            id: 0, chain: chain, sequence: sequence, timeMs: StoreClock.milliseconds(draft.time),
            subject: ControlCharacters.visible(draft.actor.subject), verb: draft.verb.rawValue,
            resourceType: draft.resource.type.rawValue, resourceID: draft.resource.id.map(ControlCharacters.visible),
            body: body, hash: hash)
    }
}
