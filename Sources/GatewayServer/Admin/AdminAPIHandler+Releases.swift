import AdminAPI
import Foundation
import GatewayCore

/// Release policies on the admin API: the wire in, ``AdminService`` decides, the policy out
/// in the shape `gatewayctl release show --json` prints.
extension AdminAPIHandler {
    func adminGetRelease(_ input: Operations.AdminGetRelease.Input) async throws -> Operations.AdminGetRelease.Output {
        try AdminInput.check(input.path.miniapp, max: 128, "miniapp")
        let policy = try await service.releasePolicy(
            try AdminScope.call(), tenantID: input.path.tenant, miniAppID: input.path.miniapp)
        return .ok(.init(headers: .init(eTag: Self.etag(policy.revision)), body: .json(try Self.view(policy))))
    }

    func adminPatchRelease(_ input: Operations.AdminPatchRelease.Input) async throws -> Operations.AdminPatchRelease.Output {
        guard case .applicationMergePatchJson(let body) = input.body else { throw AdminError.badRequest("a merge patch body") }
        try AdminInput.check(input.path.miniapp, max: 128, "miniapp")
        try AdminInput.check(body.reason, max: 500, "reason")
        try AdminInput.check(body.stable, max: 64, "stable")
        try AdminInput.check(body.candidate?.version, max: 64, "candidate.version")
        if let candidate = body.candidate, candidate.version == nil, candidate.percent == nil {
            throw AdminError.badRequest("candidate names neither version nor percent")
        }
        let patch = AdminReleasePatch(
            stable: body.stable, candidateVersion: body.candidate?.version, percent: body.candidate?.percent,
            reason: body.reason)
        guard patch.stable != nil || patch.candidateVersion != nil || patch.percent != nil else {
            throw AdminError.badRequest("the patch names no field this version changes (stable, candidate)")
        }
        let policy = try await service.patchRelease(
            try AdminScope.call(), tenantID: input.path.tenant, miniAppID: input.path.miniapp, patch: patch,
            revision: try input.headers.ifMatch.map(Self.revision))
        return .ok(.init(headers: .init(eTag: Self.etag(policy.revision)), body: .json(try Self.view(policy))))
    }

    func adminReleaseAction(_ input: Operations.AdminReleaseAction.Input) async throws -> Operations.AdminReleaseAction.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(input.path.miniapp, max: 128, "miniapp")
        try AdminInput.check(body.reason, max: 500, "reason")
        for (value, name) in [(body.to, "to"), (body.version, "version"), (body.useInstead, "useInstead")] {
            try AdminInput.check(value, max: 64, name)
        }
        let action: AdminReleaseAction
        switch body.action {
        case .pause: action = .pause
        case .resume: action = .resume
        case .promote: action = .promote
        case .halt: action = .halt
        case .rollback:
            guard let to = body.to else { throw AdminError.badRequest("rollback needs to") }
            action = .rollback(to: to)
        case .withdraw:
            guard let version = body.version else { throw AdminError.badRequest("withdraw needs version") }
            action = .withdraw(version: version, useInstead: body.useInstead)
        }
        let call = try AdminScope.call()
        let (tenantID, miniAppID) = (input.path.tenant, input.path.miniapp)
        let revision = try input.headers.ifMatch.map(Self.revision)
        let fingerprint = try Self.fingerprint(
            "release-action", tenantID, miniAppID, input.headers.ifMatch ?? "", body: body)
        let (response, replayed) = try await service.once(
            call, key: input.headers.idempotencyKey, fingerprint: fingerprint
        ) {
            let policy = try await service.actOnRelease(
                call, tenantID: tenantID, miniAppID: miniAppID, action: action, revision: revision, reason: body.reason)
            return IdempotentResponse(
                status: 200, etag: Self.etag(policy.revision), body: try Self.json(ReleasePolicyView(policy)))
        }
        return .ok(
            .init(
                headers: .init(eTag: response.etag ?? "", idempotentReplayed: replayed ? ._true : nil),
                body: .json(try Self.wire(json: response.body, as: Components.Schemas.ReleasePolicy.self))))
    }

    func adminReleaseHistory(_ input: Operations.AdminReleaseHistory.Input) async throws -> Operations.AdminReleaseHistory.Output {
        try AdminInput.check(input.path.miniapp, max: 128, "miniapp")
        let entries = try await service.releaseHistory(
            try AdminScope.call(), tenantID: input.path.tenant, miniAppID: input.path.miniapp,
            limit: input.query.limit ?? 50)
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: entries.map {
                            .init(at: $0.at, actor: $0.actor, action: $0.action.rawValue, summary: $0.summary, reason: $0.reason)
                        }))))
    }

    /// The policy in the contract's shape, through the operators' view's JSON.
    static func view(_ policy: ReleasePolicy) throws -> Components.Schemas.ReleasePolicy {
        try wire(ReleasePolicyView(policy), as: Components.Schemas.ReleasePolicy.self)
    }
}
