import Foundation

/// A local user as operators read it (`gatewayctl user list --json`, the admin API): never the
/// password hash or the TOTP secret, only whether they are there.
public struct UserDocument: Sendable, Codable, Equatable {
    public var username: String
    public var subject: String
    public var name: String?
    public var email: String?
    /// E.164.
    public var phone: String?
    /// Whether a code proved the e-mail address (a sign-up or My account).
    public var emailVerified: Bool
    /// Whether a code proved the phone number.
    public var phoneVerified: Bool
    public var picture: String?
    public var disabled: Bool
    /// Whether the user has a TOTP second factor (never the secret).
    public var totp: Bool
    /// Created for an upstream identity: no password, signs in only through its provider.
    public var upstreamOnly: Bool
    /// The user's revision (the admin API's `ETag`).
    public var revision: Int64

    public init(_ u: LocalUser) {
        username = u.username
        subject = u.subject
        name = u.name
        email = u.email
        phone = u.phone
        emailVerified = u.emailVerified
        phoneVerified = u.phoneVerified
        picture = u.picture
        disabled = u.disabled
        totp = u.totpSecret != nil
        upstreamOnly = u.passwordHash == IdentityLinker.noPassword
        revision = u.revision
    }
}

/// What disabling or enabling a user did: the user's document with `revokedTokens` beside its
/// members.
public struct UserStateChange: Sendable, Codable, Equatable {
    public var user: UserDocument
    public var revokedTokens: Int

    public init(user: UserDocument, revokedTokens: Int) {
        self.user = user
        self.revokedTokens = revokedTokens
    }

    private enum CodingKeys: String, CodingKey { case revokedTokens }

    public init(from decoder: any Decoder) throws {
        user = try UserDocument(from: decoder)
        revokedTokens = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .revokedTokens)
    }

    public func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(revokedTokens, forKey: .revokedTokens)
    }
}

/// What erasing a user did.
public struct UserErasureReport: Sendable, Codable, Equatable {
    public var username: String
    public var subject: String
    public var erasure: UserErasure
    /// Mini apps whose release allow or deny list named the user.
    public var releaseListsOf: [String]

    public init(username: String, subject: String, erasure: UserErasure, releaseListsOf: [String]) {
        self.username = username
        self.subject = subject
        self.erasure = erasure
        self.releaseListsOf = releaseListsOf
    }
}

/// The rules a new user's username and password follow, on every path.
extension LocalUser {
    /// How long a password may be.
    public static let passwordLengths = 8...1024

    /// Why `username` is refused (`username must be …`), or nil.
    public static func usernameProblem(_ username: String) -> String? {
        (1...200).contains(username.count) && !username.contains(where: { $0.isWhitespace })
            && !ControlCharacters.held(in: username)
            ? nil : "username must be 1-200 characters without spaces or control characters"
    }
}

/// The profile members a change names (a JSON merge patch on the admin API; `user update`'s
/// flags): an absent member stays, an empty string clears it. `password` is write-only.
public struct UserPatch: Sendable, Codable, Equatable {
    public var name: String?
    public var email: String?
    /// E.164 (`+819012345678`).
    public var phone: String?
    public var picture: String?
    public var password: String?

    public init(
        name: String? = nil, email: String? = nil, phone: String? = nil, picture: String? = nil, password: String? = nil
    ) {
        self.name = name
        self.email = email
        self.phone = phone
        self.picture = picture
        self.password = password
    }

    public var isEmpty: Bool { self == UserPatch() }

    /// Why the patch is refused, or nil.
    public var problem: String? {
        // Stored in columns of their own: no control character (GRDB would cut a U+0000 short
        // on SQLite, PostgreSQL refuses one; issue 62).
        for (member, value) in [("name", name), ("email", email), ("picture", picture)] {
            if let value, ControlCharacters.held(in: value) { return "\(member) must not contain control characters" }
        }
        if let phone, !phone.isEmpty, phone.range(of: JourneyStep.phonePattern, options: .regularExpression) == nil {
            return "phone must be an E.164 number: +, a country code and at most 15 digits in all"
        }
        if let password, !LocalUser.passwordLengths.contains(password.count) {
            return "password must be \(LocalUser.passwordLengths.lowerBound)-\(LocalUser.passwordLengths.upperBound) characters"
        }
        return nil
    }

    /// `user` with the patch's profile members applied (the password is the caller's: it hashes).
    /// An e-mail address or phone number that changes is no longer verified.
    public func applyProfile(to user: inout LocalUser) {
        func cleared(_ value: String) -> String? { value.isEmpty ? nil : value }
        if let name { user.name = cleared(name) }
        if let email, cleared(email) != user.email { (user.email, user.emailVerified) = (cleared(email), false) }
        if let phone, cleared(phone) != user.phone { (user.phone, user.phoneVerified) = (cleared(phone), false) }
        if let picture { user.picture = cleared(picture) }
    }
}

/// The audit record of a user change: the profile members that changed before and after, the
/// password as "changed" only (never a hash), the revision on the resource.
public enum UserTrail {
    public static func draft(
        _ old: LocalUser?, _ new: LocalUser?, actor: AuditActor, requestID: String?, verb: AdminVerb, time: Date,
        outcome: AuditOutcome = .ok
    ) -> AuditDraft {
        let user = new ?? old
        var change = AuditChange.between(old.map(UserDocument.init), new.map(UserDocument.init), ignoring: ["revision"])
        if let old, let new, old.passwordHash != new.passwordHash,
            case .object(var before) = change.before, case .object(var after) = change.after
        {
            (before["password"], after["password"]) = (.string("(previous)"), .string("(changed)"))
            change = AuditChange(before: .object(before), after: .object(after))
        }
        return AuditDraft(
            time: time, actor: actor, requestID: requestID, verb: verb,
            resource: AuditResource(
                type: .user, tenant: user?.tenantID, id: user?.username, revisionBefore: old?.revision,
                revisionAfter: new?.revision),
            outcome: outcome, change: change)
    }
}
