import Foundation

/// Why a change to a local user was refused.
public enum UserAccountError: Error, Sendable, Equatable {
    /// A username or password the rules refuse.
    case invalid(String)
    /// The tenant has a user of that username (or subject).
    case exists(String)
    /// No user of that username in the tenant.
    case notFound(String)
    /// The user changed since the revision the caller read.
    case stale(current: Int64)
}

/// Adding, changing, disabling and erasing a tenant's local users (issue 48: the rules once,
/// for gatewayctl's database path and the admin API alike). Each change is one store
/// transaction with its audit record; a stale revision changes nothing.
public struct UserAccountService: Sendable {
    let users: any AuthStore
    let releases: any ReleasePolicyStore
    let hasher: PasswordHasher

    public init(users: any AuthStore, releases: any ReleasePolicyStore, hasher: PasswordHasher = PasswordHasher()) {
        self.users = users
        self.releases = releases
        self.hasher = hasher
    }

    /// Who acts and when, for the audit record.
    public struct Attribution: Sendable {
        public var actor: AuditActor
        public var requestID: String?
        public var time: Date

        public init(actor: AuditActor, requestID: String?, time: Date) {
            self.actor = actor
            self.requestID = requestID
            self.time = time
        }
    }

    /// Adds a user with a password (scrypt-hashed here) and the profile `patch` names.
    public func create(
        tenantID: String, username: String, password: String, profile: UserPatch, by who: Attribution
    ) async throws -> LocalUser {
        if let problem = LocalUser.usernameProblem(username) { throw UserAccountError.invalid(problem) }
        var patch = profile
        patch.password = password
        if let problem = patch.problem { throw UserAccountError.invalid(problem) }
        var user = LocalUser(tenantID: tenantID, username: username, passwordHash: try hasher.hash(password))
        profile.applyProfile(to: &user)
        do {
            try await users.addUsers([user]) { stored in
                UserTrail.draft(
                    nil, stored, actor: who.actor, requestID: who.requestID, verb: .create, time: who.time, outcome: .created)
            }
        } catch AuthStoreError.alreadyExists {
            throw UserAccountError.exists(username)
        }
        user.revision = 1
        return user
    }

    /// Applies `patch` (a new password is hashed here) and, when `totp` is given, sets up a
    /// new second factor (true: the new Base32 secret is in the answer) or removes it (false),
    /// at `revision` when given.
    public func update(
        tenantID: String, username: String, patch: UserPatch, totp: Bool? = nil, revision: Int64?, by who: Attribution
    ) async throws -> (user: LocalUser, totpSecret: String?) {
        if let problem = patch.problem { throw UserAccountError.invalid(problem) }
        let hash = try patch.password.map(hasher.hash)
        let secret = totp == true ? TOTP.newSecret() : nil
        let stored = try await write(tenantID: tenantID, username: username) {
            try await users.writeUser(
                tenantID: tenantID, username: username,
                trail: { UserTrail.draft($0, $1, actor: who.actor, requestID: who.requestID, verb: .update, time: who.time) }
            ) { current in
                try Self.check(current, revision)
                var user = current
                patch.applyProfile(to: &user)
                if let hash { user.passwordHash = hash }
                if let totp { user.totpSecret = totp ? secret.map(SecretValue.init) : nil }
                return user
            }
        }
        return (stored, secret)
    }

    /// Disables the user (sign-in refused; every session and live token revoked at once) or
    /// enables it again, at `revision` when given. A user already in that state is answered
    /// as it is.
    public func setDisabled(
        _ disabled: Bool, tenantID: String, username: String, revision: Int64?, by who: Attribution
    ) async throws -> UserStateChange {
        let user = try await require(tenantID: tenantID, username: username)
        let (stored, revoked) = try await write(tenantID: tenantID, username: username) {
            try await users.setUserDisabled(
                disabled, tenantID: tenantID, subject: user.subject, now: who.time,
                check: { try Self.check($0, revision) },
                trail: { UserTrail.draft($0, $1, actor: who.actor, requestID: who.requestID, verb: .act, time: who.time) })
        }
        return UserStateChange(user: UserDocument(stored), revokedTokens: revoked)
    }

    /// Erases the user and everything kept about it in one transaction, at `revision` when
    /// given, then takes it off release allow and deny lists (a failure there leaves lists
    /// naming a user that no longer exists: harmless, and the error says so).
    public func erase(
        tenantID: String, username: String, revision: Int64?, by who: Attribution
    ) async throws -> UserErasureReport {
        let user = try await require(tenantID: tenantID, username: username)
        let erasure = try await write(tenantID: tenantID, username: username) {
            try await users.eraseUser(
                tenantID: tenantID, subject: user.subject, now: who.time, check: { try Self.check($0, revision) },
                trail: { UserTrail.draft($0, nil, actor: who.actor, requestID: who.requestID, verb: .delete, time: who.time) })
        }
        let lists = try await ReleaseService(store: releases)
            .forget(userID: user.subject, tenantID: tenantID, actor: who.actor)
        return UserErasureReport(username: username, subject: user.subject, erasure: erasure, releaseListsOf: lists)
    }

    /// The user `username` of the tenant, or `notFound`.
    public func require(tenantID: String, username: String) async throws -> LocalUser {
        guard let user = try await users.user(tenantID: tenantID, username: username) else {
            throw UserAccountError.notFound(username)
        }
        return user
    }

    private static func check(_ user: LocalUser, _ revision: Int64?) throws {
        if let revision, user.revision != revision { throw UserAccountError.stale(current: user.revision) }
    }

    /// `body`, its store's `notFound` as the username's.
    private func write<T>(tenantID: String, username: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch AuthStoreError.notFound {
            throw UserAccountError.notFound(username)
        }
    }
}
