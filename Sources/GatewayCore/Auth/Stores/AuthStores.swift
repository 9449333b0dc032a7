import Foundation

/// Durable signing keys of tenants. Writes bump the tenant's change counter, so every replica
/// reads the tenant's keys again within the change feed's delay.
public protocol SigningKeyStore: Sendable {
    /// Every key of `tenantID` (in every phase), newest first.
    func signingKeys(tenantID: String) async throws -> [SigningKey]
    /// Adds a key with its schedule; `trail` is appended to the operators' audit trail in the
    /// same transaction.
    func addSigningKey(_ key: SigningKey, trail: AuditDraft?) async throws
    /// Adds `key` unless the tenant already has a key of its algorithm that may sign at `now`,
    /// as one step no other writer interleaves with (replicas making a tenant's first key at the
    /// same moment keep one, so no replica signs with a key the others do not publish).
    /// - Returns: whether `key` was added.
    @discardableResult
    func addFirstSigningKey(_ key: SigningKey, now: Date) async throws -> Bool
    /// Replaces schedules of keys of `tenantID` in one transaction no other key writer
    /// interleaves with: `plan(keys)` reads the tenant's keys as they stand and answers the new
    /// schedules by kid (or throws, and nothing is written); an unknown kid throws `notFound`,
    /// and then nothing changes. `trail(keys, schedules)` is appended to the operators' audit
    /// trail in the same transaction when anything changes. Answers the schedules written.
    @discardableResult
    func scheduleSigningKeys(
        tenantID: String, trail: (@Sendable ([SigningKey], [String: SigningKey.Schedule]) -> AuditDraft)?,
        _ plan: @escaping @Sendable ([SigningKey]) throws -> [String: SigningKey.Schedule]
    ) async throws -> [String: SigningKey.Schedule]
}

extension SigningKeyStore {
    /// Adds a key with its schedule (no audit record: the gateway's own first keys).
    public func addSigningKey(_ key: SigningKey) async throws {
        try await addSigningKey(key, trail: nil)
    }

    /// Replaces the schedules of keys of `tenantID`, all in one transaction; throws `notFound`
    /// for an unknown kid, and then nothing changes.
    public func scheduleSigningKeys(tenantID: String, _ schedules: [String: SigningKey.Schedule]) async throws {
        try await scheduleSigningKeys(tenantID: tenantID, trail: nil) { _ in schedules }
    }
}

/// Registered OAuth clients.
public protocol ClientStore: Sendable {
    func client(tenantID: String, clientID: String) async throws -> OAuthClient?
    func clients(tenantID: String) async throws -> [OAuthClient]
    /// Inserts every client (at revision 1) in one transaction, all or nothing: an invalid
    /// client throws `invalid`, an id already registered `alreadyExists`, and then none is
    /// stored. `trail(client)` is appended to the operators' audit trail for each, in the
    /// same transaction.
    func addClients(_ clients: [NewClient], trail: (@Sendable (OAuthClient) -> AuditDraft)?) async throws
    /// Changes one client in one transaction: `change(current)` answers the client to store
    /// (its revision bumped by the store) or nil to remove it, and may throw to abort with
    /// nothing written; `trail(old, new)` is appended in the same transaction. Throws
    /// `notFound` when there is no such client; answers what was stored (nil: removed).
    @discardableResult
    func writeClient(
        tenantID: String, clientID: String, trail: (@Sendable (OAuthClient, OAuthClient?) -> AuditDraft)?,
        _ change: @Sendable (OAuthClient) throws -> OAuthClient?
    ) async throws -> OAuthClient?
    /// The stored secret hash of a confidential client.
    func clientSecretHash(tenantID: String, clientID: String) async throws -> String?
}

extension ClientStore {
    /// ``addClients(_:trail:)`` without audit-trail records.
    public func addClients(_ clients: [NewClient]) async throws { try await addClients(clients, trail: nil) }

    /// Replaces a client's settings (its revision bumped), without an audit-trail record.
    public func updateClient(_ client: OAuthClient) async throws {
        try await writeClient(tenantID: client.tenantID, clientID: client.clientID, trail: nil) { _ in client }
    }

    /// Removes a client, without an audit-trail record.
    public func removeClient(tenantID: String, clientID: String) async throws {
        try await writeClient(tenantID: tenantID, clientID: clientID, trail: nil) { _ in nil }
    }
}

/// How a client store stores a changed client: validated, tenant and id kept, revision bumped.
public enum ClientRevision {
    /// `new` as stored after `old`: its ids are `old`'s, its revision the next one.
    public static func next(after old: OAuthClient, _ new: OAuthClient) throws -> OAuthClient {
        var stored = new
        (stored.tenantID, stored.clientID, stored.revision) = (old.tenantID, old.clientID, old.currentRevision + 1)
        try stored.validate()
        return stored
    }

    /// A new client as stored: validated, at revision 1.
    public static func first(_ client: OAuthClient) throws -> OAuthClient {
        var stored = client
        stored.revision = 1
        try stored.validate()
        return stored
    }
}

/// A client to register and the hash of its secret (nil for a public client).
public struct NewClient: Sendable {
    public var client: OAuthClient
    public var secretHash: String?

    public init(_ client: OAuthClient, secretHash: String?) {
        self.client = client
        self.secretHash = secretHash
    }
}

extension ClientStore {
    /// Inserts one client (throws `alreadyExists`) with an optional secret hash.
    public func addClient(_ client: OAuthClient, secretHash: String?) async throws {
        try await addClients([NewClient(client, secretHash: secretHash)])
    }
}

/// Local users.
public protocol UserStore: ClientConsentStore {
    func user(tenantID: String, username: String) async throws -> LocalUser?
    func user(tenantID: String, subject: String) async throws -> LocalUser?
    func users(tenantID: String) async throws -> [LocalUser]
    /// Up to `limit` users whose email equals `email` ignoring ASCII case, by username (indexed).
    func users(tenantID: String, email: String, limit: Int) async throws -> [LocalUser]
    /// The users holding the phone number `phone` (E.164, as stored), by username, at most
    /// `limit`.
    func users(tenantID: String, phone: String, limit: Int) async throws -> [LocalUser]
    /// Up to `limit` users by username after `after`; only disabled (true) or only active
    /// (false) ones when `disabled` is given.
    func users(tenantID: String, after: String?, limit: Int, disabled: Bool?) async throws -> [LocalUser]
    /// Inserts every user (at revision 1) in one transaction, all or nothing: a username or
    /// subject already taken throws `alreadyExists`, and then none is stored. `trail(user)` is
    /// appended to the operators' audit trail for each, in the same transaction.
    func addUsers(_ users: [LocalUser], trail: (@Sendable (LocalUser) -> AuditDraft)?) async throws
    /// Changes one user in one transaction: `change(current)` answers the user to store (its
    /// tenant, username and subject as they are; its revision bumped by the store) or throws,
    /// and then nothing is written; `trail(old, new)` is appended in the same transaction.
    /// Throws `notFound` when there is no such user; answers what was stored.
    @discardableResult
    func writeUser(
        tenantID: String, username: String, trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?,
        _ change: @escaping @Sendable (LocalUser) throws -> LocalUser
    ) async throws -> LocalUser
}

extension UserStore {
    /// Inserts one user (throws `alreadyExists` for a taken username or subject).
    public func addUser(_ user: LocalUser) async throws {
        try await addUsers([user])
    }

    /// Inserts every user, all or nothing, without audit records (imports record their own).
    public func addUsers(_ users: [LocalUser]) async throws {
        try await addUsers(users, trail: nil)
    }

    /// Stores `user`'s profile, password, state and second factor as they are (throws
    /// `notFound` for an unknown username).
    public func updateUser(_ user: LocalUser) async throws {
        try await writeUser(tenantID: user.tenantID, username: user.username, trail: nil) { _ in user }
    }
}

/// A refresh-token family as stored (the token itself is only kept hashed).
public struct RefreshFamily: Sendable, Equatable {
    public var familyID: String
    public var tenantID: String
    public var clientID: String
    public var subject: String
    public var scope: String
    public var nonce: String?
    public var dpopJKT: String?
    public var revoked: Bool
    public var createdAt: Date
    public var absoluteExpiry: Date
    /// The login session the family belongs to (`sid`); nil for families from before sessions.
    public var sessionID: String?
    /// When the user authenticated (`auth_time`, seconds), repeated in every refreshed ID
    /// token; nil for families from before migration `v7-refresh-auth-time`.
    public var authTime: Int64?

    public init(
        familyID: String, tenantID: String, clientID: String, subject: String, scope: String, nonce: String?,
        dpopJKT: String?, revoked: Bool = false, createdAt: Date, absoluteExpiry: Date,
        sessionID: String? = nil, authTime: Int64? = nil
    ) {
        self.sessionID = sessionID
        self.authTime = authTime
        self.familyID = familyID
        self.tenantID = tenantID
        self.clientID = clientID
        self.subject = subject
        self.scope = scope
        self.nonce = nonce
        self.dpopJKT = dpopJKT
        self.revoked = revoked
        self.createdAt = createdAt
        self.absoluteExpiry = absoluteExpiry
    }
}

/// What happened when a refresh token was presented for rotation.
public enum RefreshRotation: Sendable, Equatable {
    /// The token was active: it is now rotated and `newHash` is the family's active token.
    case rotated(RefreshFamily)
    /// Unknown hash, or the family is revoked / past its lifetimes.
    case invalid
    /// A rotated token came back: the family is now revoked; these access-token jtis (with exp) must be revoked too.
    case reused(family: RefreshFamily, accessTokens: [(jti: String, expiresAt: Date)])

    public static func == (a: RefreshRotation, b: RefreshRotation) -> Bool {
        switch (a, b) {
        case (.rotated(let x), .rotated(let y)): x == y
        case (.invalid, .invalid): true
        case (.reused(let x, _), .reused(let y, _)): x == y
        default: false
        }
    }
}

/// An access token a grant is about to issue, named before the grant's store write so that
/// the write records it in the same transaction (issue 32: one write transaction per refresh,
/// not two). A family's recorded tokens are the ones a reuse or logout revokes.
public struct IssuedAccessToken: Sendable, Equatable {
    public var jti: String
    public var expiresAt: Date

    public init(jti: String, expiresAt: Date) {
        self.jti = jti
        self.expiresAt = expiresAt
    }
}

/// Durable refresh-token families.
public protocol RefreshTokenStore: Sendable {
    /// Creates a family with its first token and, when given, records `accessToken` as
    /// issued from it, in one transaction.
    /// - Returns: the family's user (its tenant and subject) as the same transaction read it, nil
    ///   when there is none: the ID token's claims without another read (issue 32).
    @discardableResult
    func createFamily(
        _ family: RefreshFamily, tokenHash: String, idleExpiry: Date, accessToken: IssuedAccessToken?
    ) async throws -> LocalUser?
    /// Atomically rotates `tokenHash` to `newHash` (single winner under concurrency) and, when
    /// it rotated, records `accessToken` as issued from the family in the same transaction
    /// (forgetting the family's expired ones, as ``recordAccessToken(familyID:jti:expiresAt:)``).
    func rotate(
        tokenHash: String, tenantID: String, clientID: String, newHash: String, now: Date, idleExpiry: Date,
        accessToken: IssuedAccessToken?
    ) async throws -> RefreshRotation
    /// A refresh's store step: the family's own conditions (``RefreshFamily/admitsRotation(presentedDPoPJKT:user:)``)
    /// checked, then ``rotate(tokenHash:tenantID:clientID:newHash:now:idleExpiry:accessToken:)``,
    /// with the family's user. A store that can do both in one round trip does (PostgreSQL);
    /// the default reads first, so an unknown token never waits for a write lock (SQLite).
    func rotateChecked(
        tokenHash: String, tenantID: String, clientID: String, newHash: String, now: Date, idleExpiry: Date,
        accessToken: IssuedAccessToken?, presentedDPoPJKT: String?
    ) async throws -> CheckedRefreshRotation
    /// Records an access token issued from a family.
    func recordAccessToken(familyID: String, jti: String, expiresAt: Date) async throws
    /// The family of a token hash (any state), when known.
    func family(ofTokenHash tokenHash: String) async throws -> RefreshFamily?
    /// The family of a token hash (any state) and the user it was issued to (nil when no user
    /// has its subject any more), in one read: what a refresh checks before it rotates
    /// (issue 32: one read fewer per refresh).
    func familyWithUser(ofTokenHash tokenHash: String) async throws -> (family: RefreshFamily, user: LocalUser?)?
    /// Revokes a family; returns its unexpired access tokens.
    func revokeFamily(_ familyID: String, now: Date) async throws -> [(jti: String, expiresAt: Date)]
    /// Revokes every family `selection` names (logout); returns their unexpired access tokens.
    func revokeFamilies(_ selection: RefreshFamilySelection, now: Date) async throws -> [(jti: String, expiresAt: Date)]
    /// The user's live families (My account's sessions): not revoked, within their absolute
    /// lifetime, holding an active token within its idle lifetime; newest first, at most `limit`.
    func liveFamilies(tenantID: String, subject: String, now: Date, limit: Int) async throws -> [RefreshFamily]
    /// Deletes at most `limit` records of access tokens expired before `now`, then at most
    /// `limit` families that can never be used again (past their absolute expiry, or revoked)
    /// and whose access tokens have all expired, with their refresh tokens.
    func purgeRefreshState(now: Date, limit: Int) async throws -> RefreshPurge
}

extension RefreshTokenStore {
    /// Creates a family with its first token, no access token recorded.
    public func createFamily(_ family: RefreshFamily, tokenHash: String, idleExpiry: Date) async throws {
        _ = try await createFamily(family, tokenHash: tokenHash, idleExpiry: idleExpiry, accessToken: nil)
    }

    /// Rotates `tokenHash` to `newHash`, no access token recorded.
    public func rotate(
        tokenHash: String, tenantID: String, clientID: String, newHash: String, now: Date, idleExpiry: Date
    ) async throws -> RefreshRotation {
        try await rotate(
            tokenHash: tokenHash, tenantID: tenantID, clientID: clientID, newHash: newHash, now: now,
            idleExpiry: idleExpiry, accessToken: nil)
    }
}

/// What one ``RefreshTokenStore/purgeRefreshState(now:limit:)`` deleted.
public struct RefreshPurge: Sendable, Equatable {
    public var families: Int
    public var accessTokens: Int

    public init(families: Int, accessTokens: Int) {
        self.families = families
        self.accessTokens = accessTokens
    }
}

/// Which refresh families a logout ends.
public enum RefreshFamilySelection: Sendable, Equatable {
    /// Every family of a user in the tenant ("sign out everywhere").
    case subject(tenantID: String, subject: String)
    /// The families of one login session (`sid`).
    case session(tenantID: String, subject: String, sessionID: String)
    /// The families of a user at one client (an ID token from before sessions, without `sid`).
    case client(tenantID: String, subject: String, clientID: String)
    /// One family, when it is the user's (My account ends one session).
    case family(tenantID: String, subject: String, familyID: String)

    /// The tenant whose families are selected.
    public var tenantID: String {
        switch self {
        case .subject(let tenantID, _), .session(let tenantID, _, _), .client(let tenantID, _, _),
            .family(let tenantID, _, _):
            tenantID
        }
    }
}
