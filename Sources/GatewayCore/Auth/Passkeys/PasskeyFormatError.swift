/// Why what an authenticator sent cannot be read.
public enum PasskeyFormatError: Error, Equatable, Sendable {
    /// The authenticator data is malformed (what is wrong in words).
    case authenticatorData(String)
    /// The attestation object or its statement is not accepted.
    case attestation(String)
    /// The named part is not CBOR the decoder accepts.
    case cbor(String, CBORError)
    /// The credential's COSE_Key is not a key the gateway verifies with.
    case publicKey(COSEKeyError)
}
