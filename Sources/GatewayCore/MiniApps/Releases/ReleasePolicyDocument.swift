import Foundation

/// How both engines keep a policy: one JSON document (sorted keys, times in milliseconds)
/// beside its revision and time columns, so a row reads the same on SQLite and PostgreSQL
/// and `gatewayctl db copy` moves it as text.
package enum ReleasePolicyDocument {
    package static func encode(_ policy: ReleasePolicy) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return String(decoding: try encoder.encode(policy), as: UTF8.self)
    }

    /// What a save writes: the policy at the next revision, stamped with the entry's time
    /// (to the millisecond), its document and that time in milliseconds.
    package static func next(
        _ policy: ReleasePolicy, at time: Date
    ) throws -> (stored: ReleasePolicy, document: String, atMs: Int64) {
        var stored = policy
        stored.revision = policy.revision + 1
        let atMs = StoreClock.milliseconds(time)
        stored.updatedAt = StoreClock.date(atMs)
        return (stored, try encode(stored), atMs)
    }

    /// The stored policy, with the row's revision and time.
    package static func decode(_ document: String, revision: Int64, updatedAtMs: Int64) throws -> ReleasePolicy {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        var policy = try decoder.decode(ReleasePolicy.self, from: Data(document.utf8))
        policy.revision = revision
        policy.updatedAt = StoreClock.date(updatedAtMs)
        return policy
    }

    /// A stored history row as an entry; an action this build does not know is refused.
    package static func historyEntry(
        atMs: Int64, actor: String, action: String, summary: String, reason: String?
    ) throws -> ReleaseHistoryEntry {
        guard let known = ReleaseAction(rawValue: action) else {
            throw ReleasePolicyError.invalid("unknown history action \(action)")
        }
        return ReleaseHistoryEntry(at: StoreClock.date(atMs), actor: actor, action: known, summary: summary, reason: reason)
    }

    /// The history's clamp: 1 ... 1,000 entries per read.
    package static func historyLimit(_ limit: Int) -> Int { min(max(limit, 1), 1_000) }
}
