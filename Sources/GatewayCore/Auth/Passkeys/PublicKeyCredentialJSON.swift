/// A new credential as `PublicKeyCredential.toJSON()` gives it after `navigator.credentials.create()`
/// (WebAuthn Level 3 §5.1, `RegistrationResponseJSON`), and as iOS and Android hand it to
/// apps: every binary member base64url.
public struct RegistrationResponseJSON: Codable, Sendable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: Response
    public var authenticatorAttachment: String?

    public struct Response: Codable, Sendable {
        public var clientDataJSON: String
        public var attestationObject: String
        public var transports: [String]?
    }
}

/// A credential used in `navigator.credentials.get()`, as `toJSON()` gives it (§5.1,
/// `AuthenticationResponseJSON`).
public struct AuthenticationResponseJSON: Codable, Sendable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: Response
    public var authenticatorAttachment: String?

    public struct Response: Codable, Sendable {
        public var clientDataJSON: String
        public var authenticatorData: String
        public var signature: String
        public var userHandle: String?
    }
}
