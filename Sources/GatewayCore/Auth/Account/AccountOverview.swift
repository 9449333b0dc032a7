import Foundation

/// What My account shows the signed-in user (`GET /v1/me/account`): the profile, the
/// identifiers with whether a code proved them, the factors (never a hash or a secret), and the
/// live sessions.
public struct AccountOverview: Sendable, Equatable {
    public var user: LocalUser
    public var sessions: [AccountSession]
    /// The account's passkeys, oldest first (their public keys never shown).
    public var passkeys: [StoredPasskey]

    public init(user: LocalUser, sessions: [AccountSession], passkeys: [StoredPasskey] = []) {
        self.user = user
        self.sessions = sessions
        self.passkeys = passkeys
    }

    /// Whether the account has a password (an upstream identity's account has none).
    public var hasPassword: Bool { user.passwordHash != IdentityLinker.noPassword }
}

/// A live sign-in of the user at one client: a refresh-token family (the token itself never).
public struct AccountSession: Sendable, Equatable {
    /// The family's id: what `DELETE /v1/me/account/sessions/{id}` names.
    public var id: String
    public var clientID: String
    public var createdAt: Date
    /// When the person authenticated for it (nil: a family from before `auth_time` was kept).
    public var authTime: Date?
    /// When it ends at the latest (the refresh token's absolute lifetime).
    public var expiresAt: Date

    public init(_ family: RefreshFamily) {
        id = family.familyID
        clientID = family.clientID
        createdAt = family.createdAt
        authTime = family.authTime.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        expiresAt = family.absoluteExpiry
    }
}
