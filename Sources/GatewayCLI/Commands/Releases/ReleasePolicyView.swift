import Foundation
import GatewayCore

/// A release policy as `--json` prints it: lists sorted, shares as percent text, times ISO 8601.
struct ReleasePolicyView: Encodable {
    struct Candidate: Encodable {
        var version: String
        var percent: String
        var shareNow: String
        var state: String
        var steps: [Step]
        var allowUsers: [String]
        var denyUsers: [String]
        var hostVersions: String?
        var platforms: [String]
        var locales: [String]
    }

    struct Step: Encodable {
        var percent: String
        var at: Date
    }

    var tenant: String
    var miniAppId: String
    var stable: String?
    var candidate: Candidate?
    var withdrawn: [WithdrawnVersion]
    var autoHalt: AutoHaltRule?
    var revision: Int64
    var updatedAt: Date

    init(_ policy: ReleasePolicy, now: Date = Date()) {
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
