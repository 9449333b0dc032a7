import Foundation

/// Someone who administers the gateway (issue 48): a person, who signs in with a password
/// (and a second factor), or a service account, automation that authenticates as an OAuth
/// client of the operator realm. Credentials are stored as hashes only.
public struct Operator: Sendable, Equatable {
    /// How an operator proves who it is.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A person: password (scrypt hash), a second factor when enforced.
        case person
        /// Automation: the client id is the operator's name, with a secret (SHA-256 hash).
        case serviceAccount = "service-account"
    }

    /// Stable subject (a random UUID), what the audit trail and the bindings name.
    public var id: String
    /// Unique login name (a person) or client id (a service account); see ``OperatorName``.
    public var name: String
    public var kind: Kind
    /// scrypt hash of a person's password (``PasswordHasher``); nil for a service account.
    public var passwordHash: String?
    /// `sha256$…` of a service account's secret (``ClientSecret``); nil for a person.
    public var secretHash: String?
    /// A service account's public keys (a JWK Set) when it authenticates with signed
    /// assertions (`private_key_jwt`, RFC 7523) instead of a secret.
    public var jwks: JSONValue?
    /// A disabled operator is refused at sign-in and on every call.
    public var disabled: Bool
    public var createdAt: Date

    public init(
        id: String = RandomUUID.lowercased(), name: String, kind: Kind, passwordHash: String? = nil,
        secretHash: String? = nil, jwks: JSONValue? = nil, disabled: Bool = false, createdAt: Date
    ) {
        self.jwks = jwks
        self.id = id
        self.name = name
        self.kind = kind
        self.passwordHash = passwordHash
        self.secretHash = secretHash
        self.disabled = disabled
        self.createdAt = createdAt
    }

    /// The sealing context of the person's TOTP secret: a sealed secret moved to another
    /// operator's row does not open.
    public static func totpSealingContext(operatorID: String) -> String {
        "operator-totp:\(operatorID)"
    }
}

/// Operator name rules: `^[a-z0-9][a-z0-9._-]{0,62}$`, safe as a client id and in a URL.
public enum OperatorName {
    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...63).contains(bytes.count), let first = bytes.first, ASCIIByte.isLowercaseLetterOrDigit(first)
        else { return false }
        return bytes.dropFirst().allSatisfy {
            ASCIIByte.isLowercaseLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                || $0 == UInt8(ascii: "_")
        }
    }
}
