import Foundation

/// Turns an upstream identity (`iss` + `sub`, with its profile claims) into the local user
/// of a tenant it is linked to: the linked user when there is a link; else, when the
/// provider allows it, the one local user with the same VERIFIED email; else a new local user
/// (created on first sign-in, no password: it can only sign in through its upstream).
public struct IdentityLinker: Sendable {
    /// The password hash of users created for upstream identities: not a valid encoding, so
    /// no password ever matches it.
    public static let noPassword = "!upstream"
    let users: any UserStore
    let links: any FederationStore

    public init(users: any UserStore, links: any FederationStore) {
        self.users = users
        self.links = links
    }

    /// Profile claims an identity's first sight may add (UserInfo, OIDC Core §5.3): only these
    /// are taken, and only from an answer about the same subject.
    static let profileClaims = ["name", "email", "email_verified", "picture"]

    /// The local user of the upstream identity named by `claims[subjectClaim]`.
    /// - Parameter profile: asked only when the identity has no link yet (its first sight), for
    ///   profile claims the token lacks (an access token rarely carries a name or email); nil
    ///   or a failure leaves the claims as they are.
    public func localUser(
        tenantID: String, issuer: String, claims: [String: JSONValue], subjectClaim: String = "sub",
        linkByVerifiedEmail: Bool = false,
        profile: (@Sendable () async -> [String: JSONValue]?)? = nil
    ) async throws -> LocalUser {
        guard let externalSubject = claims[subjectClaim]?.stringValue, !externalSubject.isEmpty,
            externalSubject.count <= 255, !ControlCharacters.held(in: externalSubject)
        else {
            throw FederationError.tokenRejected("no subject (\(subjectClaim))")
        }
        if let link = try await links.identityLink(tenantID: tenantID, issuer: issuer, externalSubject: externalSubject)
        {
            guard let user = try await users.user(tenantID: tenantID, subject: link.subject) else {
                throw FederationError.tokenRejected("the linked local user no longer exists")
            }
            guard !user.disabled else { throw FederationError.userDisabled }
            return user
        }
        var claims = claims
        if let profile, let extra = await profile(), extra["sub"]?.stringValue == externalSubject {
            for name in Self.profileClaims where claims[name] == nil { claims[name] = extra[name] }
        }
        // An email holding a control character names no one: a lookup by it would be cut
        // short at U+0000 on SQLite ("victim@example.com\u{0}x"), issue 62.
        let email = claims["email"]?.stringValue.flatMap { ControlCharacters.held(in: $0) ? nil : $0 }
        let user: LocalUser
        // Only an email naming exactly one local user links: with two, either could be taken over.
        if linkByVerifiedEmail, claims["email_verified"] == .bool(true), let email,
            case let matches = try await users.users(tenantID: tenantID, email: email, limit: 2), matches.count == 1,
            let existing = matches.first
        {
            guard !existing.disabled else { throw FederationError.userDisabled }
            user = existing
        } else {
            user = try await createUser(
                tenantID: tenantID, issuer: issuer, externalSubject: externalSubject, claims: claims)
        }
        do {
            try await links.addIdentityLink(
                IdentityLink(
                    tenantID: tenantID, issuer: issuer, externalSubject: externalSubject, subject: user.subject))
        } catch AuthStoreError.alreadyExists {
            // Another sign-in of the same identity linked it first: use that link.
            return try await localUser(
                tenantID: tenantID, issuer: issuer, claims: claims, subjectClaim: subjectClaim,
                linkByVerifiedEmail: false)
        }
        return user
    }

    /// A new user named `<issuer host>:<sub>` (with a hash suffix when that name is taken).
    private func createUser(
        tenantID: String, issuer: String, externalSubject: String, claims: [String: JSONValue]
    ) async throws -> LocalUser {
        let host = URLComponents(string: issuer)?.host ?? "upstream"
        let base = String((host + ":" + externalSubject).prefix(200))
        let candidates = [base, base + "#" + Base64URL.sha256(issuer + "|" + externalSubject).prefix(8)]
        for username in candidates {
            // Profile claims are another system's text: a name keeps its words with control
            // characters made visible; an email or picture holding one is no address.
            let plain = { (claim: String) in claims[claim]?.stringValue.flatMap { ControlCharacters.held(in: $0) ? nil : $0 } }
            let user = LocalUser(
                tenantID: tenantID, username: username, name: claims["name"]?.stringValue.map(ControlCharacters.visible),
                email: claims["email_verified"] == .bool(true) ? plain("email") : nil, picture: plain("picture"),
                passwordHash: Self.noPassword)
            do {
                try await users.addUser(user)
                return user
            } catch AuthStoreError.alreadyExists {
                continue
            }
        }
        throw AuthStoreError.alreadyExists("user \(base)")
    }
}
