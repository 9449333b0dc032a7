/// The options of `navigator.credentials.create()` as JSON (WebAuthn Level 3 §5.4,
/// `PublicKeyCredentialCreationOptionsJSON`): what `PublicKeyCredential.parseCreationOptionsFromJSON`,
/// iOS's `ASAuthorizationPlatformPublicKeyCredentialProvider` and Android's Credential
/// Manager take. Binary members are base64url.
public struct CreationOptionsJSON: Codable, Sendable, Equatable {
    public struct Party: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
    }

    public struct User: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var displayName: String
    }

    public struct Parameters: Codable, Sendable, Equatable {
        public var type = "public-key"
        public var alg: Int
    }

    public struct Selection: Codable, Sendable, Equatable {
        public var residentKey = "required"
        public var requireResidentKey = true
        public var userVerification = "required"
    }

    public struct Extensions: Codable, Sendable, Equatable {
        public var credProps = true
    }

    public var rp: Party
    public var user: User
    public var challenge: String
    public var pubKeyCredParams: [Parameters]
    public var timeout: Int
    public var excludeCredentials: [CredentialDescriptorJSON]
    public var authenticatorSelection = Selection()
    public var attestation = "none"
    public var extensions = Extensions()
}

/// The options of `navigator.credentials.get()` as JSON (§5.5,
/// `PublicKeyCredentialRequestOptionsJSON`). No allowed credentials: any passkey of the RP ID
/// the person picks (discoverable credentials, conditional mediation).
public struct RequestOptionsJSON: Codable, Sendable, Equatable {
    public var challenge: String
    public var timeout: Int
    public var rpId: String
    public var allowCredentials: [CredentialDescriptorJSON]
    public var userVerification = "required"
}

/// A credential named in options (§5.8.3, `PublicKeyCredentialDescriptorJSON`).
public struct CredentialDescriptorJSON: Codable, Sendable, Equatable {
    public var type = "public-key"
    public var id: String
    public var transports: [String]?
}
