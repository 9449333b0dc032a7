/// A registration that passed every check: what to keep of the new passkey.
public struct VerifiedRegistration: Sendable {
    public var credentialID: [UInt8]
    /// The COSE_Key as the authenticator encoded it.
    public var publicKey: [UInt8]
    public var algorithm: Int
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    public var aaguid: [UInt8]
    public var attestationFormat: String
    public var transports: [String]
}

extension RelyingParty {
    /// Verifies a registration ceremony's answer (WebAuthn Level 3 §7.1) against the
    /// challenge this ceremony issued. Whether the credential ID is new is the caller's check.
    public func verifyRegistration(
        _ credential: RegistrationResponseJSON, challenge: [UInt8]
    ) throws(PasskeyError)
        -> VerifiedRegistration
    {
        let rawID = try credential.credentialID()
        guard let clientData = Base64URL.decode(credential.response.clientDataJSON),
            let attestation = Base64URL.decode(credential.response.attestationObject)
        else { throw .malformed("clientDataJSON or attestationObject is not base64url") }
        let clientDataHash = try checkClientData(Array(clientData), ceremony: "webauthn.create", challenge: challenge)
        let object: AttestationObject
        do { object = try AttestationObject(Array(attestation), clientDataHash: clientDataHash) } catch {
            throw .malformed("\(error)")
        }
        try checkAuthenticatorData(object.authenticatorData)
        let created = object.credential
        guard created.credentialID == rawID else { throw .credentialMismatch }
        let flags = object.authenticatorData.flags
        return VerifiedRegistration(
            credentialID: created.credentialID, publicKey: created.publicKeyBytes,
            algorithm: created.publicKey.algorithm,
            signCount: object.authenticatorData.signCount, backupEligible: flags.contains(.backupEligible),
            backedUp: flags.contains(.backedUp), aaguid: created.aaguid, attestationFormat: object.format,
            transports: Array((credential.response.transports ?? []).prefix(8).map { String($0.prefix(32)) }))
    }
}
