import Foundation

/// Where release policies and their history are kept: in the tenant database, on both
/// engines. A write bumps the tenant's change counter, so every replica reloads the tenant's
/// policies through the change feed; requests never read this store.
public protocol ReleasePolicyStore: Sendable {
    /// The policy of one mini app (nil: none, the platform's latest for everyone).
    func policy(tenantID: String, miniAppID: String) async throws -> ReleasePolicy?
    /// Every policy of `tenantID`, by mini app id.
    func policies(tenantID: String) async throws -> [ReleasePolicy]
    /// Every policy of every tenant (a replica's start, or a change feed that lost track).
    func allPolicies() async throws -> [ReleasePolicy]
    /// Stores `policy` when the stored revision is still `policy.revision` (0: none stored),
    /// and appends `audit` (whose note is the history entry) to the audit trail, in one
    /// transaction. Returns the policy as stored (revision + 1, `updatedAt` = the record's time).
    /// - Throws: ``ReleasePolicyError/conflict(storedRevision:)`` when another write came first.
    func save(_ policy: ReleasePolicy, audit: AuditDraft) async throws -> ReleasePolicy
    /// The newest `limit` history entries of one mini app, newest first: a view of the audit
    /// trail (``ReleaseTrail/history(trail:tenantID:miniAppID:limit:legacy:)``).
    func history(tenantID: String, miniAppID: String, limit: Int) async throws -> [ReleaseHistoryEntry]
}

extension ReleasePolicyStore {
    /// ``save(_:audit:)`` with the plain record of `entry` (no documents).
    @discardableResult
    public func save(_ policy: ReleasePolicy, entry: ReleaseHistoryEntry) async throws -> ReleasePolicy {
        try await save(policy, audit: ReleaseTrail.draft(entry, tenantID: policy.tenantID, miniAppID: policy.miniAppID))
    }
}

/// One change to a release policy: who, when, what, why.
public struct ReleaseHistoryEntry: Sendable, Equatable, Codable {
    public var at: Date
    /// The operator (`gatewayctl` user) or `gateway` for the automatic halt.
    public var actor: String
    public var action: ReleaseAction
    /// What the policy became, in words (`stable 1.2, candidate 1.3 at 10 %`).
    public var summary: String
    /// The operator's `--reason`, or the halt's.
    public var reason: String?

    public init(at: Date, actor: String, action: ReleaseAction, summary: String, reason: String? = nil) {
        self.at = at
        self.actor = actor
        self.action = action
        self.summary = summary
        self.reason = reason
    }
}

/// What a change did (`forget`: an erased user left the allow and deny lists).
public enum ReleaseAction: String, Sendable, Equatable, Codable, CaseIterable {
    case set, pause, resume, promote, rollback, withdraw, halt, forget
}

/// What release-policy writes refuse.
public enum ReleasePolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another write changed the policy since it was read.
    case conflict(storedRevision: Int64)
    /// The policy breaks a rule (``ReleasePolicyRules``); the text says which.
    case invalid(String)
    /// The mini app has no release policy yet.
    case noPolicy(miniAppID: String)
    /// The action needs a candidate in one of `states`.
    case noCandidate(miniAppID: String, states: [String])

    public var description: String {
        switch self {
        case .conflict(let revision):
            "the release policy changed meanwhile (now at revision \(revision)); read it again and retry"
        case .invalid(let message): message
        case .noPolicy(let id): "mini app \(id) has no release policy (create one with release set)"
        case .noCandidate(let id, let states):
            "mini app \(id) has no candidate that is \(states.joined(separator: " or "))"
        }
    }
}
