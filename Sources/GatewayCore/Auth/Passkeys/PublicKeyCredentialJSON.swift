/// A credential as `PublicKeyCredential.toJSON()` gives it (WebAuthn Level 3 §5.1), and as iOS
/// and Android hand it to apps: every binary member base64url. `Response` is what the
/// ceremony's authenticator answered.
public struct PublicKeyCredentialJSON<Response: Codable & Sendable>: Codable, Sendable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: Response
    public var authenticatorAttachment: String?

    /// The credential ID: `rawId`, which `id` must repeat, of a `public-key` credential.
    func credentialID() throws(PasskeyError) -> [UInt8] {
        guard type == "public-key" else { throw .malformed("type is not public-key") }
        guard let rawID = Base64URL.decode(rawId), Base64URL.decode(id) == rawID else {
            throw .malformed("id and rawId are not the same base64url credential ID")
        }
        return Array(rawID)
    }
}

/// A new credential after `navigator.credentials.create()` (`RegistrationResponseJSON`).
public typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AttestationResponseJSON>

/// A credential used in `navigator.credentials.get()` (`AuthenticationResponseJSON`).
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AssertionResponseJSON>

/// What an authenticator answers a registration (`AuthenticatorAttestationResponseJSON`).
public struct AttestationResponseJSON: Codable, Sendable {
    public var clientDataJSON: String
    public var attestationObject: String
    public var transports: [String]?
}

/// What an authenticator answers an authentication (`AuthenticatorAssertionResponseJSON`).
public struct AssertionResponseJSON: Codable, Sendable {
    public var clientDataJSON: String
    public var authenticatorData: String
    public var signature: String
    public var userHandle: String?
}
