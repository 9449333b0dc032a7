import Foundation

/// An upstream OpenID Provider a tenant's users may sign in with ("Continue with <name>").
/// The gateway is its relying party: authorization code + PKCE (S256) + `state` + `nonce`.
public struct IdentityProvider: Sendable, Equatable, Codable {
    public var tenantID: String
    /// Short name in URLs and `idp_hint` (`[a-z0-9][a-z0-9-]{0,31}`).
    public var alias: String
    /// Shown on the sign-in button.
    public var displayName: String
    /// The upstream issuer; its discovery document is `<issuer>/.well-known/openid-configuration`.
    public var issuer: String
    public var clientID: String
    /// The client secret at the upstream (sealed at rest; nil: a public client, PKCE only).
    public var clientSecret: SecretValue?
    /// Requested scopes, `openid` included.
    public var scopes: [String]
    /// Link a first upstream login to an existing local user whose email equals the upstream's
    /// VERIFIED email (`email_verified: true`). Off by default: an upstream that lets users
    /// claim any address would otherwise take over local accounts.
    public var linkByVerifiedEmail: Bool
    /// The sign-in page goes straight to this provider (the only sign-in method shown).
    public var autoRedirect: Bool
    public var createdAt: Date

    public init(
        tenantID: String, alias: String, displayName: String? = nil, issuer: String, clientID: String,
        clientSecret: SecretValue? = nil,
        scopes: [String] = ["openid", "profile", "email"], linkByVerifiedEmail: Bool = false,
        autoRedirect: Bool = false, createdAt: Date = Date()
    ) {
        self.tenantID = tenantID
        self.alias = alias
        self.displayName = displayName ?? alias
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.linkByVerifiedEmail = linkByVerifiedEmail
        self.autoRedirect = autoRedirect
        self.createdAt = createdAt
    }

    /// The context the client secret is sealed under: `idp:<tenant>:<alias>`.
    public static func sealingContext(tenantID: String, alias: String) -> String {
        "idp:\(tenantID):\(alias)"
    }

    /// Checks the fields an operator typed (thrown as ``AuthStoreError/invalid(_:)``).
    public func validate() throws {
        guard Self.isValidAlias(alias) else { throw AuthStoreError.invalid("alias must match [a-z0-9][a-z0-9-]{0,31}") }
        try TrustedIssuer.validateIssuer(issuer)
        guard !clientID.isEmpty, clientID.count <= 256 else {
            throw AuthStoreError.invalid("client id must be 1 to 256 characters")
        }
        guard scopes.contains("openid") else { throw AuthStoreError.invalid("scopes must include openid") }
        guard !displayName.isEmpty, displayName.count <= 64 else {
            throw AuthStoreError.invalid("display name must be 1 to 64 characters")
        }
    }

    static func isValidAlias(_ alias: String) -> Bool {
        let bytes = Array(alias.utf8)
        guard (1...32).contains(bytes.count), bytes[0] != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }
    }
}

/// An external issuer whose JWT access tokens a tenant accepts on its API like its own
/// (a super app that signs users in with its own provider keeps using that provider's tokens).
public struct TrustedIssuer: Sendable, Equatable, Codable {
    public var tenantID: String
    /// The `iss` value, exactly.
    public var issuer: String
    /// The `aud` value the tokens must carry (one of them).
    public var audience: String
    /// The claim that names the user (`sub` unless the issuer puts it elsewhere).
    public var subjectClaim: String
    /// Where the keys are; nil: from the issuer's discovery document.
    public var jwksURI: String?
    /// Opaque (non-JWT) tokens are checked by RFC 7662 introspection at the issuer's
    /// `introspection_endpoint` with these client credentials; nil: opaque tokens are refused.
    public var introspection: Introspection?
    public var createdAt: Date

    /// How the gateway introspects the issuer's opaque tokens.
    public struct Introspection: Sendable, Equatable, Codable {
        public var clientID: String
        /// Sealed at rest.
        public var clientSecret: SecretValue?
        /// The longest time an answer is reused (never past the token's `exp`).
        public var cacheSeconds: Int

        public init(clientID: String, clientSecret: SecretValue?, cacheSeconds: Int = 300) {
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.cacheSeconds = cacheSeconds
        }
    }

    public init(
        tenantID: String, issuer: String, audience: String, subjectClaim: String = "sub", jwksURI: String? = nil,
        introspection: Introspection? = nil,
        createdAt: Date = Date()
    ) {
        self.tenantID = tenantID
        self.issuer = issuer
        self.audience = audience
        self.subjectClaim = subjectClaim
        self.jwksURI = jwksURI
        self.introspection = introspection
        self.createdAt = createdAt
    }

    /// The context the introspection secret is sealed under.
    public static func sealingContext(tenantID: String, issuer: String) -> String {
        "issuer:\(tenantID):" + Base64URL.sha256(issuer)
    }

    /// Checks the fields an operator typed.
    public func validate() throws {
        try Self.validateIssuer(issuer)
        guard !audience.isEmpty, audience.count <= 512 else {
            throw AuthStoreError.invalid("audience must be 1 to 512 characters")
        }
        guard !subjectClaim.isEmpty, subjectClaim.count <= 64 else {
            throw AuthStoreError.invalid("subject claim must be 1 to 64 characters")
        }
        if let jwksURI { try Self.validateIssuer(jwksURI, what: "JWKS URI") }
        if let introspection {
            guard !introspection.clientID.isEmpty, introspection.clientID.count <= 256 else {
                throw AuthStoreError.invalid("introspection client id must be 1 to 256 characters")
            }
            guard (1...3600).contains(introspection.cacheSeconds) else {
                throw AuthStoreError.invalid("introspection cache time must be 1 to 3600 seconds")
            }
        }
    }

    /// An issuer is an https URL without query or fragment (RFC 8414 §2); plain http is
    /// accepted for loopback hosts only (local development and tests).
    static func validateIssuer(_ value: String, what: String = "issuer") throws {
        guard value.count <= 512, let url = URLComponents(string: value), let scheme = url.scheme, let host = url.host,
            !host.isEmpty,
            url.query == nil, url.fragment == nil
        else {
            throw AuthStoreError.invalid("\(what) must be an absolute URL without query or fragment")
        }
        guard scheme == "https" || (scheme == "http" && LoopbackHost.contains(host)) else {
            throw AuthStoreError.invalid("\(what) must use https (http only for localhost)")
        }
    }
}

/// An upstream identity (`iss` + `sub`) linked to a local user of a tenant.
public struct IdentityLink: Sendable, Equatable, Codable {
    public var tenantID: String
    public var issuer: String
    public var externalSubject: String
    /// The local user's `sub`.
    public var subject: String
    public var createdAt: Date

    public init(tenantID: String, issuer: String, externalSubject: String, subject: String, createdAt: Date = Date()) {
        self.tenantID = tenantID
        self.issuer = issuer
        self.externalSubject = externalSubject
        self.subject = subject
        self.createdAt = createdAt
    }
}

/// The JSON rows both engines keep (secrets never inside: they are sealed in their own column).
extension IdentityProvider {
    /// The provider without its client secret, as JSON.
    package func storedDocument() throws -> String {
        var copy = self
        copy.clientSecret = nil
        return String(decoding: try JSONEncoder().encode(copy), as: UTF8.self)
    }

    /// A provider read back: its document and its opened secret.
    package static func stored(
        _ document: String, sealedSecret: String?, sealer: SecretSealer
    ) throws -> IdentityProvider {
        var provider = try JSONDecoder().decode(IdentityProvider.self, from: Data(document.utf8))
        provider.clientSecret = try sealedSecret.map {
            SecretValue(
                try sealer.open($0, context: sealingContext(tenantID: provider.tenantID, alias: provider.alias)))
        }
        return provider
    }

    /// The client secret sealed for its row (nil without one).
    package func sealedSecret(_ sealer: SecretSealer) throws -> String? {
        try clientSecret.map {
            try sealer.seal($0.plaintext, context: Self.sealingContext(tenantID: tenantID, alias: alias))
        }
    }
}

extension TrustedIssuer {
    /// The trust without its introspection secret, as JSON.
    package func storedDocument() throws -> String {
        var copy = self
        copy.introspection?.clientSecret = nil
        return String(decoding: try JSONEncoder().encode(copy), as: UTF8.self)
    }

    /// A trust read back: its document and its opened introspection secret.
    package static func stored(_ document: String, sealedSecret: String?, sealer: SecretSealer) throws -> TrustedIssuer
    {
        var trust = try JSONDecoder().decode(TrustedIssuer.self, from: Data(document.utf8))
        if let sealedSecret {
            trust.introspection?.clientSecret = SecretValue(
                try sealer.open(sealedSecret, context: sealingContext(tenantID: trust.tenantID, issuer: trust.issuer)))
        }
        return trust
    }

    /// The introspection secret sealed for its row (nil without one).
    package func sealedSecret(_ sealer: SecretSealer) throws -> String? {
        try introspection?.clientSecret.map {
            try sealer.seal($0.plaintext, context: Self.sealingContext(tenantID: tenantID, issuer: issuer))
        }
    }
}
