import Foundation

/// A user of the embedded identity store of a tenant.
public struct LocalUser: Sendable, Equatable {
    public var tenantID: String
    public var username: String
    /// The stable `sub` claim (random, never the username).
    public var subject: String
    public var name: String?
    public var email: String?
    /// The phone number, E.164 (`+819012345678`): one a code sent to it verified, or an
    /// operator set.
    public var phone: String?
    public var picture: String?
    /// Whether a code sent to ``email`` proved it (a sign-up or My account); an operator's or
    /// an import's address is not verified, and a new address is not until its code comes back.
    public var emailVerified: Bool = false
    /// Whether a code sent to ``phone`` proved it.
    public var phoneVerified: Bool = false
    public var disabled: Bool
    /// The scrypt hash (see ``PasswordHasher``); never logged.
    public var passwordHash: String
    /// The TOTP second factor's Base32 secret (sealed at rest); nil: password only.
    public var totpSecret: SecretValue?
    /// Bumped by the store on every write: the admin API's `ETag` (1 for a user stored before
    /// migration `v27-user-revisions`).
    public var revision: Int64

    /// The context the TOTP secret is sealed under: `user:<tenant>:<subject>:totp`.
    /// Equal when the accounts are: the revision is the store's write counter (not read on
    /// every path: a refresh reads the user without it), compared on its own where it matters.
    public static func == (lhs: LocalUser, rhs: LocalUser) -> Bool {
        (lhs.tenantID, lhs.username, lhs.subject, lhs.passwordHash) == (rhs.tenantID, rhs.username, rhs.subject, rhs.passwordHash)
            && (lhs.name, lhs.email, lhs.phone, lhs.picture) == (rhs.name, rhs.email, rhs.phone, rhs.picture)
            && (lhs.disabled, lhs.totpSecret) == (rhs.disabled, rhs.totpSecret)
            && (lhs.emailVerified, lhs.phoneVerified) == (rhs.emailVerified, rhs.phoneVerified)
    }

    /// The stores' `verified` column: 1 the e-mail address, 2 the phone number.
    public var verifiedBits: Int64 { (emailVerified ? 1 : 0) | (phoneVerified ? 2 : 0) }

    /// Sets the verified flags from the stores' `verified` column.
    public mutating func setVerified(bits: Int64) {
        emailVerified = bits & 1 != 0
        phoneVerified = bits & 2 != 0
    }

    public static func totpSealingContext(tenantID: String, subject: String) -> String {
        "user:\(tenantID):\(subject):totp"
    }

    public init(
        tenantID: String, username: String, subject: String = RandomUUID.lowercased(), name: String? = nil,
        email: String? = nil, phone: String? = nil, picture: String? = nil, disabled: Bool = false, passwordHash: String,
        totpSecret: SecretValue? = nil, revision: Int64 = 1
    ) {
        self.totpSecret = totpSecret
        self.revision = revision
        self.tenantID = tenantID
        self.username = username
        self.subject = subject
        self.name = name
        self.email = email
        self.phone = phone
        self.picture = picture
        self.disabled = disabled
        self.passwordHash = passwordHash
    }
}
