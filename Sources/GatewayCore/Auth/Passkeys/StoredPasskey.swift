import Foundation

/// A user's passkey as the gateway keeps it: the credential's public key and what each use
/// is checked against (the counter, the backup-eligible flag), and what My account shows.
public struct StoredPasskey: Sendable, Equatable {
    /// The most passkeys one user holds; a registration past it is refused.
    public static let maximumPerUser = 20
    /// The longest name a person gives a passkey.
    public static let maximumNameLength = 64

    public var tenantID: String
    public var subject: String
    public var credentialID: [UInt8]
    /// The COSE_Key as the authenticator encoded it.
    public var publicKey: [UInt8]
    public var algorithm: Int
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    public var aaguid: [UInt8]
    public var transports: [String]
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(
        tenantID: String, subject: String, credentialID: [UInt8], publicKey: [UInt8], algorithm: Int,
        signCount: UInt32, backupEligible: Bool, backedUp: Bool, aaguid: [UInt8], transports: [String],
        name: String, createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.tenantID = tenantID
        self.subject = subject
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
        self.transports = transports
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// The passkey a verified registration created for `subject`.
    public init(_ verified: VerifiedRegistration, tenantID: String, subject: String, name: String, at: Date) {
        self.init(
            tenantID: tenantID, subject: subject, credentialID: verified.credentialID, publicKey: verified.publicKey,
            algorithm: verified.algorithm, signCount: verified.signCount, backupEligible: verified.backupEligible,
            backedUp: verified.backedUp, aaguid: verified.aaguid, transports: verified.transports,
            name: String(name.prefix(Self.maximumNameLength)), createdAt: at)
    }

    /// The WebAuthn user handle of `subject`'s account: the subject itself (an opaque
    /// identifier, no personal data, at most 64 bytes as §5.4.3 asks).
    public static func userHandle(of subject: String) -> [UInt8] { Array(subject.utf8) }

    /// What the relying party checks a use of this passkey against.
    public var registered: RegisteredPasskey {
        RegisteredPasskey(
            credentialID: credentialID, publicKey: publicKey, signCount: signCount, backupEligible: backupEligible,
            userHandle: Self.userHandle(of: subject))
    }
}

extension StoredPasskey {
    /// The `amr` of a sign-in or step-up with this passkey (RFC 8176): proof of a key, `hwk`
    /// when it never leaves its authenticator, `swk` when it may be synced (backup eligible),
    /// and `user` for the user verification every ceremony requires.
    public var amr: [String] { [backupEligible ? "swk" : "hwk", "user"] }
}
