import Foundation

/// What a release policy must satisfy before it is stored: versions and user ids of a sane
/// shape, a candidate other than stable, steps later than now in time order, lists within
/// their bound.
public enum ReleasePolicyRules {
    /// The most users an allow or deny list holds.
    public static let maxListedUsers = 100_000
    /// The most steps a rollout has.
    public static let maxSteps = 20

    /// Throws ``ReleasePolicyError/invalid(_:)`` naming the first rule `policy` breaks.
    /// - Parameters:
    ///   - now: steps must be later than this,
    ///   - waiting: except these, a paused or halted candidate's steps that fell due meanwhile.
    public static func check(
        _ policy: ReleasePolicy, now: Date, waiting: Set<RolloutStep> = []
    ) throws(ReleasePolicyError) {
        func fail(_ message: String) throws(ReleasePolicyError) -> Never { throw .invalid(message) }
        if !isIdentifier(policy.miniAppID) { try fail("invalid mini app id \"\(policy.miniAppID.prefix(80))\"") }
        if let stable = policy.stable, !isVersion(stable) { try fail("invalid stable version \"\(stable.prefix(80))\"") }
        for entry in policy.withdrawn {
            if !isVersion(entry.version) { try fail("invalid withdrawn version \"\(entry.version.prefix(80))\"") }
            if entry.useInstead == entry.version { try fail("version \(entry.version) cannot replace itself") }
        }
        if let rule = policy.autoHalt {
            if !(1...1_000).contains(rule.errorRatio) { try fail("the halt error ratio must be 1-1000") }
            if !(1...10_000_000).contains(rule.minOpens) { try fail("the halt minimum of opens must be 1-10000000") }
            if !(1...10_000_000).contains(rule.minUsers) { try fail("the halt minimum of users must be 1-10000000") }
        }
        guard let candidate = policy.candidate else { return }
        if !isVersion(candidate.version) { try fail("invalid candidate version \"\(candidate.version.prefix(80))\"") }
        if candidate.version == policy.stable { try fail("the candidate is the stable version (\(candidate.version))") }
        if candidate.steps.count > maxSteps { try fail("at most \(maxSteps) steps") }
        var previous: Date?
        for step in candidate.steps {
            if step.at <= now, !waiting.contains(step) {
                try fail("step \(step.percent)% at \(step.at) is not in the future")
            }
            if let previous, step.at <= previous { try fail("steps must be in time order") }
            previous = step.at
        }
        for (name, list) in [("allow", candidate.allowUsers), ("deny", candidate.denyUsers)] {
            if list.count > maxListedUsers {
                try fail("the \(name) list has \(list.count) users; at most \(maxListedUsers)")
            }
            if let bad = list.first(where: { !isUserID($0) }) {
                try fail("malformed user id \"\(bad.prefix(80))\" in the \(name) list")
            }
        }
        if let both = candidate.allowUsers.first(where: candidate.denyUsers.contains) {
            try fail("user \(both.prefix(80)) is on both the allow and the deny list")
        }
    }

    /// 1–64 of letters, digits, `.`, `_`, `-`, `+`.
    public static func isVersion(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { ASCIIByte.isLetterOrDigit($0) || "._-+".utf8.contains($0) }
    }

    /// A mini app id: 1–128 of letters, digits, `.`, `_`, `-`.
    public static func isIdentifier(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count)
            && text.utf8.allSatisfy { ASCIIByte.isLetterOrDigit($0) || "._-".utf8.contains($0) }
    }

    /// A user id (a token subject): 1–255 visible ASCII characters, no spaces or commas.
    public static func isUserID(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count) && text.utf8.allSatisfy { ASCIIByte.isVisible($0) && $0 != UInt8(ascii: ",") }
    }
}
