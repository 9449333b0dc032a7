import Foundation

/// A release policy as operators read it, through `gatewayctl release show --json` and the
/// admin API alike (one shape, so both print the same bytes): lists sorted, shares as
/// percent text, the share in effect now beside the stored one.
public struct ReleasePolicyView: Codable, Sendable, Equatable {
    /// The candidate as operators read it.
    public struct Candidate: Codable, Sendable, Equatable {
        public var version: String
        public var percent: String
        public var shareNow: String
        public var state: String
        public var steps: [Step]
        public var allowUsers: [String]
        public var denyUsers: [String]
        public var hostVersions: String?
        public var platforms: [String]
        public var locales: [String]
    }

    /// A later share and when it applies.
    public struct Step: Codable, Sendable, Equatable {
        public var percent: String
        public var at: Date
    }

    public var tenant: String
    public var miniAppId: String
    public var stable: String?
    public var candidate: Candidate?
    public var withdrawn: [WithdrawnVersion]
    public var autoHalt: AutoHaltRule?
    public var revision: Int64
    public var updatedAt: Date

    /// The view of `policy` with its share at `now`.
    public init(_ policy: ReleasePolicy, now: Date = Date()) {
        tenant = policy.tenantID
        miniAppId = policy.miniAppID
        stable = policy.stable
        withdrawn = policy.withdrawn
        autoHalt = policy.autoHalt
        revision = policy.revision
        updatedAt = policy.updatedAt
        candidate = policy.candidate.map { candidate in
            Candidate(
                version: candidate.version, percent: candidate.percent.description,
                shareNow: candidate.share(at: now).description, state: candidate.state.rawValue,
                steps: candidate.steps.map { Step(percent: $0.percent.description, at: $0.at) },
                allowUsers: candidate.allowUsers.sorted(), denyUsers: candidate.denyUsers.sorted(),
                hostVersions: candidate.segment.hostVersions?.description,
                platforms: candidate.segment.platforms.map(\.rawValue).sorted(), locales: candidate.segment.locales.sorted())
        }
    }
}
