import Foundation

/// How one mini app of one tenant is released: the version everyone gets, an optional
/// candidate offered to a share of users, and versions taken back. Stored per tenant × mini
/// app (``ReleasePolicyStore``); decided per request in memory
/// (``version(for:at:)``).
public struct ReleasePolicy: Sendable, Equatable, Codable {
    public var tenantID: String
    public var miniAppID: String
    /// The version outside the candidate's cohort; nil: the platform's latest published version.
    public var stable: String?
    /// The version being rolled out, if any.
    public var candidate: ReleaseCandidate?
    /// Versions never offered again, each with the version to use instead.
    public var withdrawn: [WithdrawnVersion]
    /// When the gateway halts the candidate's rollout by itself; nil: never.
    public var autoHalt: AutoHaltRule?
    /// The store's count of changes to this policy (0: never stored).
    public var revision: Int64
    public var updatedAt: Date

    public init(
        tenantID: String, miniAppID: String, stable: String? = nil, candidate: ReleaseCandidate? = nil,
        withdrawn: [WithdrawnVersion] = [], autoHalt: AutoHaltRule? = nil, revision: Int64 = 0,
        updatedAt: Date = Date(timeIntervalSince1970: 0)
    ) {
        self.autoHalt = autoHalt
        self.tenantID = tenantID
        self.miniAppID = miniAppID
        self.stable = stable
        self.candidate = candidate
        self.withdrawn = withdrawn
        self.revision = revision
        self.updatedAt = updatedAt
    }
}

/// A version offered to a cohort: a share of users (raised by steps at their times), the
/// users always in and never in, and the segments it is limited to.
public struct ReleaseCandidate: Sendable, Equatable, Codable {
    public var version: String
    /// The share before the first step (while paused: the share it was paused at).
    public var percent: RolloutPercent
    /// Later shares at their times, in time order.
    public var steps: [RolloutStep]
    /// Users who always get the candidate (at most ``ReleasePolicyRules/maxListedUsers``).
    public var allowUsers: Set<String>
    /// Users who never get it.
    public var denyUsers: Set<String>
    public var segment: ReleaseSegment
    public var state: RolloutState

    public init(
        version: String, percent: RolloutPercent, steps: [RolloutStep] = [], allowUsers: Set<String> = [],
        denyUsers: Set<String> = [], segment: ReleaseSegment = .init(), state: RolloutState = .active
    ) {
        self.version = version
        self.percent = percent
        self.steps = steps
        self.allowUsers = allowUsers
        self.denyUsers = denyUsers
        self.segment = segment
        self.state = state
    }

    /// Whether `userID` is on the allow or the deny list.
    public func names(_ userID: String) -> Bool {
        allowUsers.contains(userID) || denyUsers.contains(userID)
    }

    /// Folds the steps whose time has come into ``percent`` (the share stays what it was at
    /// `now`), so a policy whose rollout moved on still passes ``ReleasePolicyRules``. A paused or
    /// halted candidate's steps wait: those that fall due meanwhile apply, in order, when it
    /// resumes.
    public mutating func settle(at now: Date) {
        guard state == .active else { return }
        percent = share(at: now)
        steps.removeAll { $0.at <= now }
    }

    /// The share at `now`: the last step whose time has come, else ``percent``; while
    /// paused or halted the steps do not count.
    public func share(at now: Date) -> RolloutPercent {
        guard state == .active else { return percent }
        var share = percent
        for step in steps where step.at <= now { share = step.percent }
        return share
    }
}

/// A share from a time on.
public struct RolloutStep: Sendable, Hashable, Codable {
    public var percent: RolloutPercent
    public var at: Date

    public init(percent: RolloutPercent, at: Date) {
        self.percent = percent
        self.at = at
    }
}

/// Whether a candidate is being offered.
public enum RolloutState: String, Sendable, Equatable, Codable, CaseIterable {
    /// Offered to its cohort; steps advance.
    case active
    /// Offered to the cohort it had when paused; steps wait.
    case paused
    /// Offered to no one (the automatic halt, or an operator's): everyone gets stable.
    case halted
}

/// When a rollout halts by itself: the candidate's failure rate above `errorRatio` times the
/// stable side's, counted over the shared sliding window from what the gateway can attribute
/// (``ReleaseHealth``), once each side has at least `minOpens` opens from at least `minUsers`
/// distinct users.
public struct AutoHaltRule: Sendable, Equatable, Codable {
    /// The distinct users each side needs by default before the rule compares them.
    public static let defaultMinUsers = 50

    public var errorRatio: Double
    public var minOpens: Int
    /// Distinct users each side needs (policies stored before it existed get the default).
    public var minUsers: Int

    public init(errorRatio: Double, minOpens: Int, minUsers: Int = AutoHaltRule.defaultMinUsers) {
        self.errorRatio = errorRatio
        self.minOpens = minOpens
        self.minUsers = minUsers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        errorRatio = try container.decode(Double.self, forKey: .errorRatio)
        minOpens = try container.decode(Int.self, forKey: .minOpens)
        minUsers = try container.decodeIfPresent(Int.self, forKey: .minUsers) ?? Self.defaultMinUsers
    }
}

/// A version taken back.
public struct WithdrawnVersion: Sendable, Equatable, Codable {
    public var version: String
    /// What users of it get instead; nil: the platform's latest published version.
    public var useInstead: String?

    public init(version: String, useInstead: String?) {
        self.version = version
        self.useInstead = useInstead
    }
}

extension ReleasePolicy {
    /// The policy in words, for the history and the CLI: `stable 1.0, candidate 1.1 at 10% (active)`.
    public var summary: String {
        var parts = ["stable \(stable ?? "platform latest")"]
        if let candidate {
            var text = "candidate \(candidate.version) at \(candidate.percent)%"
            if !candidate.steps.isEmpty { text += " then " + candidate.steps.map { "\($0.percent)%" }.joined(separator: ", ") }
            parts.append(text + " (\(candidate.state.rawValue))")
        }
        if !withdrawn.isEmpty { parts.append("withdrawn " + withdrawn.map(\.version).joined(separator: ", ")) }
        if let autoHalt {
            let ratio = autoHalt.errorRatio
            let text = ratio == ratio.rounded() ? String(Int(ratio)) : String(ratio)
            parts.append("halts above \(text)x stable's error rate from \(autoHalt.minOpens) opens")
        }
        return parts.joined(separator: ", ")
    }
}
