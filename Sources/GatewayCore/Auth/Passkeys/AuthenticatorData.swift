/// The authenticator data an authenticator signs (WebAuthn Level 3 §6.1): the RP ID's hash,
/// the flags, the signature counter, and at registration the new credential with its key.
public struct AuthenticatorData: Sendable {
    /// The flags byte (§6.1, "flags").
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let backupEligible = Flags(rawValue: 0x08)
        public static let backedUp = Flags(rawValue: 0x10)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential an authenticator created (§6.5.1).
    public struct AttestedCredential: Sendable {
        public var aaguid: [UInt8]
        public var credentialID: [UInt8]
        /// The COSE_Key as the authenticator encoded it (stored as is).
        public var publicKeyBytes: [UInt8]
        public var publicKey: COSEKey
    }

    /// The longest credential ID a relying party must accept (§5.8.3, "id": 1023 bytes).
    public static let maximumCredentialIDLength = 1_023

    public var rpIDHash: [UInt8]
    public var flags: Flags
    public var signCount: UInt32
    public var attestedCredential: AttestedCredential?
    public var extensions: CBOR?
    /// The bytes as the authenticator sent them (what its signature covers).
    public var bytes: [UInt8]

    /// Reads `bytes` strictly: every flagged part present, nothing after the last one.
    public init(_ bytes: [UInt8], decoder: CBORDecoder = CBORDecoder()) throws(PasskeyFormatError) {
        guard bytes.count >= 37 else { throw .authenticatorData("shorter than 37 bytes") }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        if flags.contains(.backedUp) && !flags.contains(.backupEligible) {
            throw .authenticatorData("backed up but not backup eligible")
        }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else { throw .authenticatorData("attested credential data truncated") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length >= 1, length <= Self.maximumCredentialIDLength else {
                throw .authenticatorData("credential ID of \(length) bytes")
            }
            guard bytes.count >= offset + length else { throw .authenticatorData("credential ID truncated") }
            let credentialID = Array(bytes[offset..<offset + length])
            offset += length
            let key: CBOR
            let keyEnd: Int
            do { (key, keyEnd) = try decoder.decodePrefix(bytes, from: offset) } catch {
                throw .cbor("credential public key", error)
            }
            let publicKey: COSEKey
            do { publicKey = try COSEKey(key) } catch { throw .publicKey(error) }
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKeyBytes: Array(bytes[offset..<keyEnd]),
                publicKey: publicKey)
            offset = keyEnd
        }
        if flags.contains(.extensionData) {
            let item: CBOR
            do { (item, offset) = try decoder.decodePrefix(bytes, from: offset) } catch {
                throw .cbor("extensions", error)
            }
            guard item.pairs != nil else { throw .authenticatorData("extensions are not a map") }
            extensions = item
        }
        guard offset == bytes.count else { throw .authenticatorData("\(bytes.count - offset) bytes after the data") }
    }
}
