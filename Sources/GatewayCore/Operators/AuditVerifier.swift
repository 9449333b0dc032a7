import Foundation

/// Walks chains of the audit trail and names every record that does not hold
/// (`gatewayctl audit verify`, issues 48 and 62).
public enum AuditVerifier {
    /// The most breaks one walk keeps (each is also counted past it).
    public static let maxBreaksKept = 1_000

    /// What a walk of one chain found.
    public struct Verification: Sendable, Equatable {
        public var chain: String
        /// Records that held (all of them when intact).
        public var intactRecords: Int
        /// Every record that does not hold, in chain order (the first ``AuditVerifier/maxBreaksKept``).
        public var breaks: [Break] = []
        /// How many records do not hold (``breaks`` keeps the first of them).
        public var brokenRecords: Int = 0
        /// The checkpoint the walk started after (retention pruned the records before it).
        public var checkpoint: AuditCheckpoint?

        /// The first record that does not hold; nil: the chain is intact.
        public var broken: Break? { breaks.first }

        public init(
            chain: String, intactRecords: Int, breaks: [Break] = [], brokenRecords: Int? = nil,
            checkpoint: AuditCheckpoint? = nil
        ) {
            self.chain = chain
            self.intactRecords = intactRecords
            self.breaks = breaks
            self.brokenRecords = brokenRecords ?? breaks.count
            self.checkpoint = checkpoint
        }
    }

    /// The first record that does not hold, and why.
    public struct Break: Sendable, Equatable, CustomStringConvertible {
        /// The record; nil: the chain's checkpoint is what does not hold.
        public var recordID: Int64?
        public var sequence: Int64
        public var reason: String

        public var description: String {
            guard let recordID else { return "its checkpoint (sequence \(sequence)): \(reason)" }
            return "record \(recordID) (sequence \(sequence)): \(reason)"
        }
    }

    /// Walks `chain` from its first record (or its checkpoint, which `signer` must hold),
    /// `pageSize` rows at a time, up to sequence `through` (nil: its end); `progress` gets
    /// the number of records checked after each page.
    public static func verify(
        _ trail: any AuditTrail, chain: String, signer: AuditCheckpointSigner? = nil, through: Int64? = nil,
        pageSize: Int = 1_000, progress: (Int) -> Void = { _ in }
    ) async throws -> Verification {
        var expected: Int64 = 1
        var previousHash = AuditChain.genesis
        let checkpoint = try await trail.checkpoint(chain: chain)
        if let checkpoint {
            let reason =
                signer == nil
                ? "no key to check its signature (verify with the gateway's master key)"
                : checkpoint.chain != chain
                    ? "it was signed for chain \(checkpoint.chain)"
                    : signer?.holds(checkpoint) == true ? nil : "its signature does not hold: it was altered or forged"
            if let reason {
                return Verification(
                    chain: chain, intactRecords: 0,
                    breaks: [Break(recordID: nil, sequence: checkpoint.sequence, reason: reason)], checkpoint: checkpoint)
            }
            expected = checkpoint.sequence + 1
            previousHash = checkpoint.hash
        }
        var verification = Verification(chain: chain, intactRecords: 0, checkpoint: checkpoint)
        var checked = 0
        walk: while true {
            let rows = try await trail.rows(chain: chain, afterSequence: expected - 1, limit: pageSize)
            for row in rows {
                if let through, row.sequence > through { break walk }
                if let reason = problem(row, chain: chain, expected: expected, previousHash: previousHash) {
                    // Every break is named: the walk goes on from this record, as if it held.
                    verification.brokenRecords += 1
                    if verification.breaks.count < maxBreaksKept {
                        verification.breaks.append(Break(recordID: row.id, sequence: row.sequence, reason: reason))
                    }
                } else {
                    verification.intactRecords += 1
                }
                checked += 1
                // A copy (a sequence seen already) leaves the walk where it was; past a gap
                // it goes on from this record.
                guard row.sequence >= expected else { continue }
                previousHash = row.hash
                expected = row.sequence + 1
            }
            progress(checked)
            if rows.count < pageSize { break }
        }
        return verification
    }

    /// Why `row` does not hold at position `expected` after `previousHash` (nil: it holds).
    static func problem(_ row: AuditRow, chain: String, expected: Int64, previousHash: String) -> String? {
        if row.sequence != expected {
            return row.sequence > expected
                ? "sequence \(expected) is missing: a record before this one was removed"
                : "sequence \(row.sequence) appears twice: a record was copied or moved"
        }
        guard let record = AuditChain.record(row) else { return "altered: its body is not a sealed record" }
        if AuditChain.hash(row.body) != row.hash { return "altered: its hash does not match its body" }
        if record.chain != chain || record.sequence != row.sequence {
            return "moved: it was sealed as sequence \(record.sequence) of chain \(record.chain)"
        }
        if record.previousHash != previousHash {
            return "does not follow the record before it (one was removed, reordered or altered)"
        }
        if row.timeMs != record.timeMs || row.subject != ControlCharacters.visible(record.actor.subject)
            || row.verb != record.verb.rawValue || row.resourceType != record.resource.type.rawValue
            || row.resourceID != record.resource.id.map(ControlCharacters.visible)
        {
            return "altered: its columns differ from its sealed body"
        }
        return nil
    }
}

extension AuditVerifier {
    /// Whether one record holds where it stands, without walking its chain: its row matches
    /// its sealed body, it follows the record before it (or the chain's start, or the
    /// checkpoint retention left there), and the record after it, if any, follows it. Three
    /// rows read whatever the chain's length (the console's record page); a whole walk is
    /// ``verify(_:chain:signer:through:pageSize:progress:)``. Nil: it holds.
    public static func link(_ trail: any AuditTrail, chain: String, sequence: Int64) async throws -> Break? {
        let rows = try await trail.rows(chain: chain, afterSequence: max(0, sequence - 2), limit: 3)
        guard let row = rows.first(where: { $0.sequence == sequence }) else {
            return Break(recordID: nil, sequence: sequence, reason: "it is not in its chain: it was removed or moved")
        }
        let before: String?
        if let previous = rows.first(where: { $0.sequence == sequence - 1 }) {
            before = previous.hash
        } else if sequence == 1 {
            before = AuditChain.genesis
        } else if let checkpoint = try await trail.checkpoint(chain: chain), checkpoint.sequence == sequence - 1 {
            before = checkpoint.hash
        } else {
            before = nil
        }
        guard let before else {
            return Break(
                recordID: row.id, sequence: sequence,
                reason: "sequence \(sequence - 1) is missing: the record before this one was removed")
        }
        if let reason = problem(row, chain: chain, expected: sequence, previousHash: before) {
            return Break(recordID: row.id, sequence: sequence, reason: reason)
        }
        if let next = rows.first(where: { $0.sequence == sequence + 1 }),
            let reason = problem(next, chain: chain, expected: sequence + 1, previousHash: row.hash)
        {
            return Break(recordID: next.id, sequence: sequence + 1, reason: "the record after it " + reason)
        }
        return nil
    }
}
