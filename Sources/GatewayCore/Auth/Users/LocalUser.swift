import Foundation

/// A user of the embedded identity store of a tenant.
public struct LocalUser: Sendable, Equatable {
    public var tenantID: String
    public var username: String
    /// The stable `sub` claim (random, never the username).
    public var subject: String
    public var name: String?
    public var email: String?
    public var picture: String?
    public var disabled: Bool
    /// The scrypt hash (see ``PasswordHasher``); never logged.
    public var passwordHash: String
    /// The TOTP second factor's Base32 secret (sealed at rest); nil: password only.
    public var totpSecret: SecretValue?

    /// The context the TOTP secret is sealed under: `user:<tenant>:<subject>:totp`.
    public static func totpSealingContext(tenantID: String, subject: String) -> String {
        "user:\(tenantID):\(subject):totp"
    }

    public init(
        tenantID: String, username: String, subject: String = RandomUUID.lowercased(), name: String? = nil,
        email: String? = nil, picture: String? = nil, disabled: Bool = false, passwordHash: String,
        totpSecret: SecretValue? = nil
    ) {
        self.totpSecret = totpSecret
        self.tenantID = tenantID
        self.username = username
        self.subject = subject
        self.name = name
        self.email = email
        self.picture = picture
        self.disabled = disabled
        self.passwordHash = passwordHash
    }
}
