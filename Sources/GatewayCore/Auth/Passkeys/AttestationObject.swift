/// A registration's attestation object (WebAuthn Level 3 §6.5.4): the format, its statement
/// and the authenticator data holding the new credential.
///
/// Formats accepted: `none`, and `packed` self-attestation (no certificate: the statement is
/// the new credential's own signature over the authenticator data and the client data's
/// hash, verified here). The gateway asks for no attestation, so a certificate chain
/// (`packed` with `x5c`, or another format) is refused rather than trusted unverified.
public struct AttestationObject: Sendable {
    public var format: String
    public var authenticatorData: AuthenticatorData
    /// The credential the authenticator created.
    public var credential: AuthenticatorData.AttestedCredential

    /// Reads `bytes` and checks its statement against `clientDataHash` (SHA-256 of the
    /// client data JSON the browser or the app sent beside it).
    public init(
        _ bytes: [UInt8], clientDataHash: [UInt8], decoder: CBORDecoder = CBORDecoder()
    )
        throws(PasskeyFormatError)
    {
        let item: CBOR
        do { item = try decoder.decode(bytes) } catch { throw .cbor("attestation object", error) }
        guard let format = item["fmt"]?.text else { throw .attestation("no fmt") }
        guard let statement = item["attStmt"], let members = statement.pairs else { throw .attestation("no attStmt") }
        guard let rawData = item["authData"]?.bytes else { throw .attestation("no authData") }
        let data = try AuthenticatorData(rawData, decoder: decoder)
        guard let credential = data.attestedCredential else { throw .attestation("no attested credential") }
        switch format {
        case "none":
            guard members.isEmpty else { throw .attestation("a none statement that is not empty") }
        case "packed":
            guard statement["x5c"] == nil, statement["ecdaaKeyId"] == nil else {
                throw .attestation("packed attestation with a certificate is not accepted")
            }
            guard let alg = statement["alg"]?.int, let signature = statement["sig"]?.bytes else {
                throw .attestation("a packed statement without alg and sig")
            }
            guard alg == credential.publicKey.algorithm else {
                throw .attestation("the packed statement's alg is not the credential's")
            }
            guard credential.publicKey.isValidSignature(signature, for: rawData + clientDataHash) else {
                throw .attestation("the packed self-attestation signature does not verify")
            }
        default:
            throw .attestation("format \(format) is not accepted")
        }
        self.format = format
        authenticatorData = data
        self.credential = credential
    }
}
