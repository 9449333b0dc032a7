import Foundation

/// A one-time credential of the operator realm, kept by its hash until it is used or
/// expires: an authorization code (60 seconds, bound to its client, redirect URI and PKCE
/// challenge) or a refresh token (rotated on every use, within the sign-in's absolute
/// lifetime). Taking one marks it used in the same statement, so of two concurrent uses
/// exactly one wins; a used one presented again ends its sign-in (``OperatorGrantUse/reused``).
public struct OperatorGrant: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case code
        case refresh
    }

    public var kind: Kind
    /// `sha256$…` of the credential (``ClientSecret/hash(_:)``); the credential is never stored.
    public var hash: String
    public var operatorID: String
    public var clientID: String
    /// The redirect URI a code was issued for (nil for a refresh token).
    public var redirectURI: String?
    /// The code's S256 challenge (nil for a refresh token).
    public var codeChallenge: String?
    /// How the operator signed in (`password`, `password+totp`): carried to every token.
    public var method: String
    public var expiresAt: Date
    /// The end of the sign-in: no refresh reaches past it.
    public var sessionExpiresAt: Date
    /// The sign-in this grant belongs to: every code, refresh token and access token it leads
    /// to carries it, so one reuse can end them all.
    public var sessionID: String

    public init(
        kind: Kind, hash: String, operatorID: String, clientID: String, redirectURI: String? = nil,
        codeChallenge: String? = nil, method: String, expiresAt: Date, sessionExpiresAt: Date, sessionID: String
    ) {
        self.sessionID = sessionID
        self.kind = kind
        self.hash = hash
        self.operatorID = operatorID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.method = method
        self.expiresAt = expiresAt
        self.sessionExpiresAt = sessionExpiresAt
    }
}

/// What taking a grant found.
public enum OperatorGrantUse: Sendable, Equatable {
    /// Unused and unexpired: it is now used.
    case taken(OperatorGrant)
    /// Used before: taken as stolen, its sign-in has ended (its unused grants and its access
    /// tokens are deleted in the same transaction). The sign-in's id.
    case reused(sessionID: String)
    /// Unknown or expired.
    case none
}

/// The holder of an access token: the operator, the client it was issued to, and how the
/// operator authenticated (`client_secret`, `password`, `password+totp`).
public struct OperatorTokenOwner: Sendable {
    public var owner: Operator
    public var clientID: String?
    public var method: String

    public init(owner: Operator, clientID: String?, method: String) {
        self.owner = owner
        self.clientID = clientID
        self.method = method
    }
}
