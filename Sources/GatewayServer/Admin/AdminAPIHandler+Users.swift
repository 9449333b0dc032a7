import AdminAPI
import Foundation
import GatewayCore

/// A tenant's local users on the admin API, in the shape `gatewayctl user list --json` prints
/// (never a password hash or a TOTP secret).
extension AdminAPIHandler {
    func adminListUsers(_ input: Operations.AdminListUsers.Input) async throws -> Operations.AdminListUsers.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.users(
            try AdminScope.call(), tenantID: input.path.tenant, disabled: input.query.status.map { $0 == .disabled },
            cursor: input.query.cursor, limit: input.query.limit ?? 50)
        return .ok(
            .init(
                body: .json(
                    .init(items: try page.items.map { try Self.wire($0, as: Components.Schemas.User.self) }, next: page.next))))
    }

    func adminGetUser(_ input: Operations.AdminGetUser.Input) async throws -> Operations.AdminGetUser.Output {
        try AdminInput.check(input.path.username, max: 200, "username")
        let user = try await service.user(try AdminScope.call(), tenantID: input.path.tenant, username: input.path.username)
        return .ok(.init(headers: .init(eTag: Self.etag(user.revision)), body: .json(try Self.wire(user, as: Components.Schemas.User.self))))
    }

    func adminCreateUser(_ input: Operations.AdminCreateUser.Input) async throws -> Operations.AdminCreateUser.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(body.username, max: 200, "username")
        let profile = try Self.userPatch(body)
        let user = try await service.createUser(
            try AdminScope.call(), tenantID: input.path.tenant, username: body.username, password: body.password,
            profile: UserPatch(name: profile.name, email: profile.email, phone: profile.phone, picture: profile.picture))
        return .created(
            .init(headers: .init(eTag: Self.etag(user.revision)), body: .json(try Self.wire(user, as: Components.Schemas.User.self))))
    }

    func adminPatchUser(_ input: Operations.AdminPatchUser.Input) async throws -> Operations.AdminPatchUser.Output {
        guard case .applicationMergePatchJson(let body) = input.body else { throw AdminError.badRequest("a merge patch body") }
        try AdminInput.check(input.path.username, max: 200, "username")
        let patch = try Self.userPatch(body)
        guard !patch.isEmpty else { throw AdminError.badRequest("the patch names no member") }
        let user = try await service.updateUser(
            try AdminScope.call(), tenantID: input.path.tenant, username: input.path.username, patch: patch,
            revision: try input.headers.ifMatch.map(Self.revision))
        return .ok(.init(headers: .init(eTag: Self.etag(user.revision)), body: .json(try Self.wire(user, as: Components.Schemas.User.self))))
    }

    func adminDeleteUser(_ input: Operations.AdminDeleteUser.Input) async throws -> Operations.AdminDeleteUser.Output {
        try AdminInput.check(input.path.username, max: 200, "username")
        let report = try await service.eraseUser(
            try AdminScope.call(), tenantID: input.path.tenant, username: input.path.username,
            revision: try input.headers.ifMatch.map(Self.revision))
        return .ok(.init(body: .json(try Self.wire(report, as: Components.Schemas.UserErasure.self))))
    }

    func adminUserAction(_ input: Operations.AdminUserAction.Input) async throws -> Operations.AdminUserAction.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(input.path.username, max: 200, "username")
        let change = try await service.setUserDisabled(
            try AdminScope.call(), tenantID: input.path.tenant, username: input.path.username,
            disabled: body.action == .disable, revision: try input.headers.ifMatch.map(Self.revision))
        return .ok(
            .init(
                headers: .init(eTag: Self.etag(change.user.revision)),
                body: .json(try Self.wire(change, as: Components.Schemas.UserStateChange.self))))
    }

    /// The profile members a create or patch body names, the contract's bounds checked first (400).
    static func userPatch(_ body: some Encodable) throws -> UserPatch {
        let patch = try wire(body, as: UserPatch.self)
        try AdminInput.check(patch.name, max: 200, "name", empty: true)
        try AdminInput.check(patch.email, max: 320, "email", empty: true)
        try AdminInput.check(patch.phone, max: 16, "phone", empty: true)
        try AdminInput.check(patch.picture, max: 2048, "picture", empty: true)
        if let password = patch.password, !LocalUser.passwordLengths.contains(password.count) {
            throw AdminError.badRequest("password must be 8-1024 characters")
        }
        return patch
    }
}

/// A user's passkeys (issue 64): translate, the ``AdminService`` decides.
extension AdminAPIHandler {
    func adminListUserPasskeys(
        _ input: Operations.AdminListUserPasskeys.Input
    ) async throws -> Operations.AdminListUserPasskeys.Output {
        try AdminInput.check(input.path.username, max: 200, "username")
        let passkeys = try await service.userPasskeys(
            try AdminScope.call(), tenantID: input.path.tenant, username: input.path.username)
        let items = try passkeys.map { try Self.wire($0, as: Components.Schemas.UserPasskey.self) }
        return .ok(.init(body: .json(.init(items: items))))
    }

    func adminRemoveUserPasskey(
        _ input: Operations.AdminRemoveUserPasskey.Input
    ) async throws -> Operations.AdminRemoveUserPasskey.Output {
        try AdminInput.check(input.path.username, max: 200, "username")
        try await service.removeUserPasskey(
            try AdminScope.call(), tenantID: input.path.tenant, username: input.path.username,
            passkeyID: input.path.passkeyId)
        return .noContent(.init())
    }
}
