import Foundation

/// Who calls My account: the access token's tenant, user, client and sign-in time, and the
/// client address after the trusted-proxy rules.
public struct AccountCaller: Sendable, Equatable {
    public var tenantID: String
    public var subject: String
    public var clientID: String
    /// The token's `auth_time` (nil: the token does not say, so no sign-in counts as recent).
    public var authTime: Date?
    public var address: String?

    public init(tenantID: String, subject: String, clientID: String, authTime: Date?, address: String?) {
        self.tenantID = tenantID
        self.subject = subject
        self.clientID = clientID
        self.authTime = authTime
        self.address = address
    }
}

extension AuditActor {
    /// The user acting on their own account (a journey, My account): the audit trail's actor,
    /// `user:<subject>`, with how they got in and through which client.
    public static func user(_ user: LocalUser, method: String, clientID: String, address: String?) -> AuditActor {
        AuditActor(
            subject: "user:\(user.subject)", name: user.username, roles: [],
            auth: AuditAuthentication(method: method, clientID: clientID), address: address)
    }
}
