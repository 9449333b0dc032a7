import Foundation

/// A tenant's local users on the admin API. The rules are ``UserAccountService``'s, as for
/// gatewayctl; refusals after authorization (a stale revision, a rule) are recorded.
extension AdminService {
    /// The tenant's users by username, only disabled (true) or active (false) ones when
    /// `disabled` is given, after `cursor` (a username).
    public func users(
        _ call: AdminCall, tenantID: String, disabled: Bool?, cursor: String?, limit: Int
    ) async throws -> (items: [UserDocument], next: String?) {
        try Self.checkLimit(limit)
        try await authorize(call, AdminPermission(.read, .user), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let found = try await accounts.users.users(tenantID: tenantID, after: cursor, limit: limit + 1, disabled: disabled)
        let page = Array(found.prefix(limit)).map(UserDocument.init)
        return (page, found.count > limit ? page.last?.username : nil)
    }

    /// One user of the tenant (404 `user_not_found`).
    public func user(_ call: AdminCall, tenantID: String, username: String) async throws -> UserDocument {
        try await authorize(call, AdminPermission(.read, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        return UserDocument(try await userCall(call, .read, tenantID, username) {
            try await accounts.require(tenantID: tenantID, username: username)
        })
    }

    public func createUser(
        _ call: AdminCall, tenantID: String, username: String, password: String, profile: UserPatch
    ) async throws -> UserDocument {
        try await authorize(call, AdminPermission(.create, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        return UserDocument(try await userCall(call, .create, tenantID, username) {
            try await accounts.create(
                tenantID: tenantID, username: username, password: password, profile: profile, by: attribution(call))
        })
    }

    public func updateUser(
        _ call: AdminCall, tenantID: String, username: String, patch: UserPatch, revision: Int64?
    ) async throws -> UserDocument {
        try await authorize(call, AdminPermission(.update, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        return UserDocument(try await userCall(call, .update, tenantID, username) {
            try await accounts.update(
                tenantID: tenantID, username: username, patch: patch, revision: revision, by: attribution(call)
            ).user
        })
    }

    public func setUserDisabled(
        _ call: AdminCall, tenantID: String, username: String, disabled: Bool, revision: Int64?
    ) async throws -> UserStateChange {
        try await authorize(call, AdminPermission(.act, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        return try await userCall(call, .act, tenantID, username) {
            try await accounts.setDisabled(
                disabled, tenantID: tenantID, username: username, revision: revision, by: attribution(call))
        }
    }

    public func eraseUser(
        _ call: AdminCall, tenantID: String, username: String, revision: Int64?
    ) async throws -> UserErasureReport {
        try await authorize(call, AdminPermission(.delete, .user), tenantID: tenantID, resourceID: username)
        _ = try await requireTenant(tenantID)
        return try await userCall(call, .delete, tenantID, username) {
            try await accounts.erase(tenantID: tenantID, username: username, revision: revision, by: attribution(call))
        }
    }

    private var accounts: UserAccountService { UserAccountService(users: users, releases: releases, hasher: hasher) }

    private func attribution(_ call: AdminCall) -> UserAccountService.Attribution {
        .init(actor: call.actor, requestID: call.requestID, time: clock.now())
    }

    /// `body`, its refusals as the admin API's errors; those past authorization recorded.
    private func userCall<T>(
        _ call: AdminCall, _ verb: AdminVerb, _ tenantID: String, _ username: String, _ body: () async throws -> T
    ) async throws -> T {
        let resource = AuditResource(type: .user, tenant: tenantID, id: username)
        do {
            return try await body()
        } catch UserAccountError.notFound(let name) {
            throw AdminError.userNotFound(name)
        } catch UserAccountError.exists(let name) {
            try await refused(call, verb, resource, AuditOutcome(status: 409, code: "user_exists"))
            throw AdminError.userExists(name)
        } catch UserAccountError.invalid(let reason) {
            try await refused(call, verb, resource, AuditOutcome(status: 422, code: "invalid_user"))
            throw AdminError.invalidUser(reason)
        } catch UserAccountError.stale(let current) {
            throw try await stale(call, verb, resource, current: current)
        }
    }
}
