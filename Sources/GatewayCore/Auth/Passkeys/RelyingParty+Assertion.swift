/// What the relying party knows of a stored passkey when it is used.
public struct RegisteredPasskey: Sendable {
    public var credentialID: [UInt8]
    /// The COSE_Key kept at registration.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    public var backupEligible: Bool
    /// The WebAuthn user handle of the account it belongs to.
    public var userHandle: [UInt8]

    public init(credentialID: [UInt8], publicKey: [UInt8], signCount: UInt32, backupEligible: Bool, userHandle: [UInt8])
    {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.userHandle = userHandle
    }
}

/// An authentication that passed every check: what to update on the stored passkey.
public struct VerifiedAssertion: Sendable, Equatable {
    public var signCount: UInt32
    public var backedUp: Bool
}

extension RelyingParty {
    /// Verifies an authentication ceremony's answer (WebAuthn Level 3 §7.2) made with
    /// `passkey` (found by the answer's credential ID) against the challenge this ceremony
    /// issued.
    public func verifyAssertion(
        _ credential: AuthenticationResponseJSON, challenge: [UInt8], passkey: RegisteredPasskey
    )
        throws(PasskeyError) -> VerifiedAssertion
    {
        let rawID = try credential.credentialID()
        guard rawID == passkey.credentialID else { throw .credentialMismatch }
        if let handle = credential.response.userHandle, !handle.isEmpty {
            guard let decoded = Base64URL.decode(handle), Array(decoded) == passkey.userHandle else {
                throw .credentialMismatch
            }
        }
        guard let clientData = Base64URL.decode(credential.response.clientDataJSON),
            let rawData = Base64URL.decode(credential.response.authenticatorData),
            let signature = Base64URL.decode(credential.response.signature)
        else { throw .malformed("clientDataJSON, authenticatorData or signature is not base64url") }
        let clientDataHash = try checkClientData(Array(clientData), ceremony: "webauthn.get", challenge: challenge)
        let data: AuthenticatorData
        do { data = try AuthenticatorData(Array(rawData)) } catch { throw .malformed("\(error)") }
        try checkAuthenticatorData(data)
        guard data.flags.contains(.backupEligible) == passkey.backupEligible else { throw .backupEligibilityChanged }
        let key: COSEKey
        do { key = try COSEKey(try CBORDecoder().decode(passkey.publicKey)) } catch {
            throw .malformed("the stored public key: \(error)")
        }
        guard key.isValidSignature(Array(signature), for: data.bytes + clientDataHash) else { throw .signatureInvalid }
        // §7.2 step 22: a counter in use must move forward; zero on both sides means none.
        if data.signCount != 0 || passkey.signCount != 0, data.signCount <= passkey.signCount {
            throw .counterWentBack(stored: passkey.signCount, received: data.signCount)
        }
        return VerifiedAssertion(signCount: data.signCount, backedUp: data.flags.contains(.backedUp))
    }
}
