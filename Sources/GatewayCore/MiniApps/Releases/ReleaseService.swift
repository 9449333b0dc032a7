import Foundation

/// The operators' release actions (and the automatic halt): each reads the policy, folds the
/// steps whose time has come into the candidate's share, changes it, checks
/// ``ReleasePolicyRules`` and stores it with a history entry. A write that lost a race
/// (``ReleasePolicyError/conflict(storedRevision:)``) is applied again to the policy the
/// winner stored, up to three times, since every action is a change, not a snapshot.
public struct ReleaseService: Sendable {
    private let store: any ReleasePolicyStore
    private let clock: WallClock

    public init(store: any ReleasePolicyStore, clock: WallClock = .system) {
        self.store = store
        self.clock = clock
    }

    /// The mini app whose policy an action changes, and who changes it why.
    public struct Target: Sendable {
        public var tenantID: String
        public var miniAppID: String
        public var actor: String
        public var reason: String?
        /// The revision the change was made from (the admin API's `If-Match`): when the stored
        /// policy is at another, or another write lands first, the change is refused with
        /// ``ReleasePolicyError/conflict(storedRevision:)`` instead of applied again.
        public var expectedRevision: Int64?
        /// The audit-trail record of the change (the policy before, nil if none, and after),
        /// written in the transaction that stores it.
        public var audit: (@Sendable (ReleasePolicy?, ReleasePolicy) -> AuditDraft)?
        /// Who the record names when ``audit`` is nil (nil: ``AuditActor/labelled(_:)`` of ``actor``).
        public var auditActor: AuditActor?

        public init(
            tenantID: String, miniAppID: String, actor: String, reason: String? = nil, expectedRevision: Int64? = nil,
            audit: (@Sendable (ReleasePolicy?, ReleasePolicy) -> AuditDraft)? = nil, auditActor: AuditActor? = nil
        ) {
            self.auditActor = auditActor
            self.tenantID = tenantID
            self.miniAppID = miniAppID
            self.actor = actor
            self.reason = reason
            self.expectedRevision = expectedRevision
            self.audit = audit
        }
    }

    /// Creates or changes the policy (`release set`).
    @discardableResult
    public func set(_ target: Target, _ change: @Sendable (inout ReleasePolicy) throws -> Void) async throws
        -> ReleasePolicy
    {
        try await apply(.set, to: target, creating: true) { policy, _ in try change(&policy) }
    }

    /// Freezes the candidate's share where it is now; steps wait (`release pause`).
    @discardableResult
    public func pause(_ target: Target) async throws -> ReleasePolicy {
        try await apply(.pause, to: target) { policy, _ in
            _ = try Self.candidate(of: policy, in: [.active])
            policy.candidate?.state = .paused
        }
    }

    /// Lets a paused or halted candidate go on from its share; steps whose time came meanwhile
    /// apply now, in order (the last of them is the share), and later ones wait for their time
    /// (`release resume`).
    @discardableResult
    public func resume(_ target: Target) async throws -> ReleasePolicy {
        try await apply(.resume, to: target) { policy, now in
            _ = try Self.candidate(of: policy, in: [.paused, .halted])
            policy.candidate?.state = .active
            policy.candidate?.settle(at: now)
        }
    }

    /// The candidate becomes the stable version for everyone (`release promote`).
    @discardableResult
    public func promote(_ target: Target) async throws -> ReleasePolicy {
        try await apply(.promote, to: target) { policy, _ in
            policy.stable = try Self.candidate(of: policy, in: Set(RolloutState.allCases)).version
            policy.candidate = nil
        }
    }

    /// Everyone gets `version`; the candidate is dropped (`release rollback`).
    @discardableResult
    public func rollback(_ target: Target, to version: String) async throws -> ReleasePolicy {
        try await apply(.rollback, to: target) { policy, _ in
            guard !policy.isWithdrawn(version) else {
                throw ReleasePolicyError.invalid("version \(version) was withdrawn")
            }
            policy.stable = version
            policy.candidate = nil
        }
    }

    /// Takes `version` back: never offered again, its users get `useInstead` (nil: the
    /// platform's latest). Withdrawing the candidate ends it; withdrawing stable moves stable
    /// to `useInstead` (`release withdraw`).
    @discardableResult
    public func withdraw(_ target: Target, version: String, useInstead: String?) async throws -> ReleasePolicy {
        try await apply(.withdraw, to: target, creating: true) { policy, _ in
            if let useInstead, policy.isWithdrawn(useInstead) {
                throw ReleasePolicyError.invalid("version \(useInstead) was withdrawn too")
            }
            policy.withdrawn.removeAll { $0.version == version }
            policy.withdrawn.append(WithdrawnVersion(version: version, useInstead: useInstead))
            if policy.candidate?.version == version { policy.candidate = nil }
            if policy.stable == version { policy.stable = useInstead }
        }
    }

    /// Offers the candidate to no one; its cohort returns to stable (the automatic halt, or
    /// an operator's). A candidate already halted is left as it is.
    @discardableResult
    public func halt(_ target: Target) async throws -> ReleasePolicy {
        try await apply(.halt, to: target) { policy, _ in
            _ = try Self.candidate(of: policy, in: [.active, .paused])
            policy.candidate?.state = .halted
        }
    }

    /// Removes an erased user from the allow and deny lists of every candidate of
    /// `tenantID` that names them (right to erasure), one history entry per mini app with
    /// `actor` and no user id. Returns the mini apps whose policies changed.
    @discardableResult
    public func forget(userID: String, tenantID: String, actor: AuditActor) async throws -> [String] {
        var changed: [String] = []
        for policy in try await store.policies(tenantID: tenantID) where policy.candidate?.names(userID) == true {
            let target = Target(
                tenantID: tenantID, miniAppID: policy.miniAppID, actor: actor.name, reason: "a listed user was erased",
                auditActor: actor)
            _ = try await apply(.forget, to: target) { policy, _ in
                policy.candidate?.allowUsers.remove(userID)
                policy.candidate?.denyUsers.remove(userID)
            }
            changed.append(policy.miniAppID)
        }
        return changed
    }

    private func apply(
        _ action: ReleaseAction, to target: Target, creating: Bool = false,
        _ change: (inout ReleasePolicy, Date) throws -> Void
    ) async throws -> ReleasePolicy {
        var attempt = 0
        while true {
            attempt += 1
            let now = clock.now()
            let stored = try await store.policy(tenantID: target.tenantID, miniAppID: target.miniAppID)
            if let expected = target.expectedRevision, expected != stored?.revision ?? 0 {
                throw ReleasePolicyError.conflict(storedRevision: stored?.revision ?? 0)
            }
            var policy: ReleasePolicy
            if let stored {
                policy = stored
            } else if creating {
                policy = ReleasePolicy(tenantID: target.tenantID, miniAppID: target.miniAppID)
            } else {
                throw ReleasePolicyError.noPolicy(miniAppID: target.miniAppID)
            }
            policy.candidate?.settle(at: now)
            // A paused or halted candidate's steps that fell due wait for `resume`: not new, so not
            // held to "in the future".
            let waiting = Set(policy.candidate.map { $0.state == .active ? [] : $0.steps } ?? [])
            try change(&policy, now)
            try ReleasePolicyRules.check(policy, now: now, waiting: waiting)
            var after = policy
            after.revision += 1
            after.updatedAt = now
            let record =
                target.audit
                ?? AdminService.releaseAudit(
                    actor: target.auditActor ?? AuditActor.labelled(target.actor), requestID: nil,
                    verb: action == .set ? (stored == nil ? .create : .update) : .act, tenantID: target.tenantID,
                    miniAppID: target.miniAppID, time: now)
            var draft = record(stored, after)
            draft.time = now
            draft.note = AuditNote(action: action.rawValue, summary: policy.summary, reason: target.reason)
            // The erased user's id stays out of the trail: the record says what happened, not to whom.
            if action == .forget { draft.change = nil }
            do {
                return try await store.save(policy, audit: draft)
            } catch ReleasePolicyError.conflict where attempt < 3 && target.expectedRevision == nil {
                continue
            }
        }
    }

    private static func candidate(of policy: ReleasePolicy, in states: Set<RolloutState>) throws -> ReleaseCandidate {
        guard let candidate = policy.candidate, states.contains(candidate.state) else {
            throw ReleasePolicyError.noCandidate(miniAppID: policy.miniAppID, states: states.map(\.rawValue).sorted())
        }
        return candidate
    }
}
