import Foundation

/// An action an operator runs on a release policy through the admin API.
public enum AdminReleaseAction: Sendable, Equatable {
    case pause, resume, promote, halt
    case rollback(to: String)
    case withdraw(version: String, useInstead: String?)

    /// The history's name for it.
    public var name: String {
        switch self {
        case .pause: "pause"
        case .resume: "resume"
        case .promote: "promote"
        case .halt: "halt"
        case .rollback: "rollback"
        case .withdraw: "withdraw"
        }
    }
}

/// A change to a release policy's versions and share (the admin API's merge patch): each
/// field given replaces the stored one.
public struct AdminReleasePatch: Sendable, Equatable {
    /// The version everyone else gets (`latest`: the platform's latest).
    public var stable: String?
    /// The version to roll out; a new one starts active at `percent` (default 0).
    public var candidateVersion: String?
    /// The candidate's share, 0-100 with up to two decimals.
    public var percent: Double?
    /// Why, for the history.
    public var reason: String?

    public init(stable: String? = nil, candidateVersion: String? = nil, percent: Double? = nil, reason: String? = nil) {
        self.stable = stable
        self.candidateVersion = candidateVersion
        self.percent = percent
        self.reason = reason
    }
}

extension AdminService {
    /// The release policy of one mini app the call may read.
    public func releasePolicy(_ call: AdminCall, tenantID: String, miniAppID: String) async throws -> ReleasePolicy {
        try await authorize(call, AdminPermission(.read, .release), tenantID: tenantID, miniAppID: miniAppID)
        _ = try await requireTenant(tenantID)
        guard let policy = try await releases.policy(tenantID: tenantID, miniAppID: miniAppID) else {
            throw AdminError.releaseNotFound(miniAppID: miniAppID)
        }
        return policy
    }

    /// The release policies of `tenantID` the call may read, by mini app (a release manager
    /// of named mini apps sees theirs).
    public func releasePolicies(_ call: AdminCall, tenantID: String) async throws -> [ReleasePolicy] {
        try await authorize(call, AdminPermission(.read, .release), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        return try await releases.policies(tenantID: tenantID).filter {
            AdminAuthorizer.decide(
                AdminPermission(.read, .release), tenantID: tenantID, miniAppID: $0.miniAppID,
                bindings: call.session.bindings) == .allowed
        }
    }

    /// The release policies of `tenantIDs` the call may read, in one read of the store (the
    /// console's overview): filtered by the roles, never refused, so nothing is audited.
    public func readableReleasePolicies(_ call: AdminCall, tenantIDs: Set<String>) async throws -> [ReleasePolicy] {
        try await releases.allPolicies().filter { policy in
            tenantIDs.contains(policy.tenantID)
                && AdminAuthorizer.decide(
                    AdminPermission(.read, .release), tenantID: policy.tenantID, miniAppID: policy.miniAppID,
                    bindings: call.session.bindings) == .allowed
        }
    }

    /// The newest `limit` changes of one mini app's policy, newest first.
    public func releaseHistory(
        _ call: AdminCall, tenantID: String, miniAppID: String, limit: Int
    ) async throws -> [ReleaseHistoryEntry] {
        try Self.checkLimit(limit)
        try await authorize(call, AdminPermission(.read, .release), tenantID: tenantID, miniAppID: miniAppID)
        _ = try await requireTenant(tenantID)
        return try await releases.history(tenantID: tenantID, miniAppID: miniAppID, limit: limit)
    }

    /// Runs `action` on the policy, at `revision` when given (`If-Match`).
    public func actOnRelease(
        _ call: AdminCall, tenantID: String, miniAppID: String, action: AdminReleaseAction, revision: Int64?,
        reason: String?
    ) async throws -> ReleasePolicy {
        try await authorize(call, AdminPermission(.act, .release), tenantID: tenantID, miniAppID: miniAppID)
        return try await writeRelease(call, .act, tenantID: tenantID, miniAppID: miniAppID, revision: revision) { service, target in
            var target = target
            target.reason = reason
            switch action {
            case .pause: return try await service.pause(target)
            case .resume: return try await service.resume(target)
            case .promote: return try await service.promote(target)
            case .halt: return try await service.halt(target)
            case .rollback(let version):
                try Self.checkVersion(version)
                return try await service.rollback(target, to: version)
            case .withdraw(let version, let useInstead):
                try Self.checkVersion(version)
                if let useInstead { try Self.checkVersion(useInstead) }
                return try await service.withdraw(target, version: version, useInstead: useInstead)
            }
        }
    }

    /// Changes the policy's versions and share (creating it), at `revision` when given.
    public func patchRelease(
        _ call: AdminCall, tenantID: String, miniAppID: String, patch: AdminReleasePatch, revision: Int64?
    ) async throws -> ReleasePolicy {
        try await authorize(call, AdminPermission(.update, .release), tenantID: tenantID, miniAppID: miniAppID)
        return try await writeRelease(call, .update, tenantID: tenantID, miniAppID: miniAppID, revision: revision) { service, target in
            let percent = try patch.percent.map(Self.percent)
            if let stable = patch.stable, stable != "latest" { try Self.checkVersion(stable) }
            if let version = patch.candidateVersion { try Self.checkVersion(version) }
            var target = target
            target.reason = patch.reason
            return try await service.set(target) { policy in
                if let stable = patch.stable { policy.stable = stable == "latest" ? nil : stable }
                if let version = patch.candidateVersion, version != policy.candidate?.version {
                    policy.candidate = ReleaseCandidate(version: version, percent: percent ?? .none)
                } else if let percent {
                    guard policy.candidate != nil else {
                        throw ReleasePolicyError.invalid("there is no candidate to change; give candidate.version")
                    }
                    policy.candidate?.percent = percent
                }
            }
        }
    }

    /// One write through ``ReleaseService``: the tenant must exist, the change is audited in
    /// its transaction, and a refusal after authorization is audited too.
    private func writeRelease(
        _ call: AdminCall, _ verb: AdminVerb, tenantID: String, miniAppID: String, revision: Int64?,
        _ write: (ReleaseService, ReleaseService.Target) async throws -> ReleasePolicy
    ) async throws -> ReleasePolicy {
        _ = try await requireTenant(tenantID)
        let target = ReleaseService.Target(
            tenantID: tenantID, miniAppID: miniAppID, actor: "operator:\(call.session.caller.name)",
            expectedRevision: revision,
            audit: Self.releaseAudit(
                actor: call.actor, requestID: call.requestID, verb: verb, tenantID: tenantID, miniAppID: miniAppID,
                time: clock.now()))
        let resource = AuditResource(type: .release, tenant: tenantID, id: miniAppID)
        do {
            return try await write(ReleaseService(store: releases, clock: clock), target)
        } catch let error as ReleasePolicyError {
            let (adminError, outcome): (AdminError, AuditOutcome) =
                switch error {
                case .conflict(let current):
                    (.preconditionFailed(current: current), AuditOutcome(status: 412, code: "precondition_failed"))
                case .invalid(let reason): (.invalidRelease(reason), AuditOutcome(status: 422, code: "invalid_release"))
                case .noPolicy(let id): (.releaseNotFound(miniAppID: id), AuditOutcome(status: 404, code: "release_not_found"))
                case .noCandidate:
                    (.releaseStateConflict(error.description), AuditOutcome(status: 409, code: "release_state_conflict"))
                }
            var refusedResource = resource
            if case .preconditionFailed(let current) = adminError { refusedResource.revisionBefore = current }
            try await refused(call, verb, refusedResource, outcome)
            throw adminError
        } catch let error as AdminError {
            if case .invalidRelease = error {
                try await refused(call, verb, resource, AuditOutcome(status: 422, code: "invalid_release"))
            }
            throw error
        }
    }

    /// The audit record of a change to a release policy, the policy before and after (the
    /// admin API's writes, and gatewayctl's on the database with a `local:` actor).
    public static func releaseAudit(
        actor: AuditActor, requestID: String?, verb: AdminVerb, tenantID: String, miniAppID: String, time: Date
    ) -> @Sendable (ReleasePolicy?, ReleasePolicy) -> AuditDraft {
        { before, after in
            AuditDraft(
                time: time, actor: actor, requestID: requestID, verb: verb,
                resource: AuditResource(
                    type: .release, tenant: tenantID, id: miniAppID, revisionBefore: before?.revision,
                    revisionAfter: after.revision),
                outcome: .ok,
                change: AuditChange(before: before.map { document($0, now: time) }, after: document(after, now: time)))
        }
    }

    /// The policy as the trail keeps it: the operators' view, as JSON.
    static func document(_ policy: ReleasePolicy, now: Date) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        guard let data = try? encoder.encode(ReleasePolicyView(policy, now: now)),
            let value = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return value
    }

    static func checkVersion(_ version: String) throws {
        guard ReleasePolicyRules.isVersion(version) else {
            throw AdminError.invalidRelease("\(version.prefix(80)) is not a version id (1-64 of letters, digits, '.', '_', '-', '+')")
        }
    }

    /// 0-100 with at most two decimals.
    static func percent(_ value: Double) throws -> RolloutPercent {
        let hundredths = (value * 100).rounded()
        guard value.isFinite, abs(value * 100 - hundredths) < 1e-6, let percent = RolloutPercent(basisPoints: Int(hundredths))
        else { throw AdminError.invalidRelease("percent must be 0-100 with at most two decimals, not \(value)") }
        return percent
    }
}
