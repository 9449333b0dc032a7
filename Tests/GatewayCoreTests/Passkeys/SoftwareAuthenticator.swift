import Crypto
import Foundation
import _CryptoExtras

@testable import GatewayCore

/// A passkey held in memory: it makes the COSE_Key, authenticator data, attestation objects
/// and signatures a platform authenticator would, for the tests to feed the relying party.
struct SoftwareAuthenticator {
    enum Key {
        case es256(P256.Signing.PrivateKey)
        case rs256(_RSA.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    var key: Key
    var credentialID: [UInt8] = Array((0..<16).map { UInt8($0 * 7 % 251) })
    var aaguid = [UInt8](repeating: 0xAA, count: 16)
    var signCount: UInt32 = 1

    static func es256() -> SoftwareAuthenticator { .init(key: .es256(P256.Signing.PrivateKey())) }
    static func rs256() throws -> SoftwareAuthenticator {
        .init(key: .rs256(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
    }
    static func ed25519() -> SoftwareAuthenticator { .init(key: .ed25519(Curve25519.Signing.PrivateKey())) }

    var algorithm: Int {
        switch key {
        case .es256: -7
        case .rs256: -257
        case .ed25519: -8
        }
    }

    /// The public key as the COSE_Key map an authenticator encodes.
    func coseKey() throws -> CBOR {
        switch key {
        case .es256(let key):
            let raw = Array(key.publicKey.rawRepresentation)
            return .map([
                .init(.int(1), .int(2)), .init(.int(3), .int(-7)), .init(.int(-1), .int(1)),
                .init(.int(-2), .bytes(Array(raw[0..<32]))), .init(.int(-3), .bytes(Array(raw[32..<64]))),
            ])
        case .rs256(let key):
            let primitives = try key.publicKey.getKeyPrimitives()
            return .map([
                .init(.int(1), .int(3)), .init(.int(3), .int(-257)),
                .init(.int(-1), .bytes(Array(primitives.modulus))),
                .init(.int(-2), .bytes(Array(primitives.publicExponent))),
            ])
        case .ed25519(let key):
            return .map([
                .init(.int(1), .int(1)), .init(.int(3), .int(-8)), .init(.int(-1), .int(6)),
                .init(.int(-2), .bytes(Array(key.publicKey.rawRepresentation))),
            ])
        }
    }

    /// Authenticator data for `rpID` with `flags`; with the credential when `attested`.
    func authenticatorData(
        rpID: String, flags: AuthenticatorData.Flags = [.userPresent, .userVerified], attested: Bool = false,
        extensions: CBOR? = nil
    ) throws -> [UInt8] {
        var flags = flags
        if attested { flags.insert(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) }
        var bytes = Array(SHA256.hash(data: Data(rpID.utf8)))
        bytes.append(flags.rawValue)
        bytes += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if attested {
            bytes += aaguid
            bytes += [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)]
            bytes += credentialID
            bytes += CBOREncoder.encode(try coseKey())
        }
        if let extensions { bytes += CBOREncoder.encode(extensions) }
        return bytes
    }

    /// The key's signature over `data`, as WebAuthn carries it.
    func sign(_ data: [UInt8]) throws -> [UInt8] {
        switch key {
        case .es256(let key): Array(try key.signature(for: data).derRepresentation)
        case .rs256(let key):
            Array(try key.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation)
        case .ed25519(let key): Array(try key.signature(for: data))
        }
    }

    /// An attestation object in `format` (`none`, or `packed` self-attestation).
    func attestationObject(
        rpID: String, clientDataHash: [UInt8], format: String = "none",
        flags: AuthenticatorData.Flags = [.userPresent, .userVerified]
    ) throws -> [UInt8] {
        let data = try authenticatorData(rpID: rpID, flags: flags, attested: true)
        let statement: CBOR =
            format == "packed"
            ? .map([.init(.text("alg"), .int(algorithm)), .init(.text("sig"), .bytes(try sign(data + clientDataHash)))])
            : .map([])
        return CBOREncoder.encode(
            .map([
                .init(.text("fmt"), .text(format)), .init(.text("attStmt"), statement),
                .init(.text("authData"), .bytes(data)),
            ]))
    }
}

extension SoftwareAuthenticator {
    /// Client data as a browser collects it.
    static func clientData(type: String, challenge: [UInt8], origin: String, crossOrigin: Bool = false) -> [UInt8] {
        Array(
            #"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":\#(crossOrigin)}"#
                .utf8)
    }

    /// What `navigator.credentials.create()` answers, as `toJSON()` gives it.
    func registration(
        rpID: String, challenge: [UInt8], origin: String, format: String = "none",
        flags: AuthenticatorData.Flags = [.userPresent, .userVerified], clientData: [UInt8]? = nil
    ) throws -> RegistrationResponseJSON {
        let clientData = clientData ?? Self.clientData(type: "webauthn.create", challenge: challenge, origin: origin)
        let object = try attestationObject(
            rpID: rpID, clientDataHash: Array(SHA256.hash(data: clientData)), format: format, flags: flags)
        let id = Base64URL.encode(credentialID)
        return RegistrationResponseJSON(
            id: id, rawId: id, type: "public-key",
            response: .init(
                clientDataJSON: Base64URL.encode(clientData), attestationObject: Base64URL.encode(object),
                transports: ["internal", "hybrid"]),
            authenticatorAttachment: "platform")
    }

    /// What `navigator.credentials.get()` answers, as `toJSON()` gives it.
    func assertion(
        rpID: String, challenge: [UInt8], origin: String, userHandle: [UInt8]?,
        flags: AuthenticatorData.Flags = [.userPresent, .userVerified], clientData: [UInt8]? = nil
    ) throws -> AuthenticationResponseJSON {
        let clientData = clientData ?? Self.clientData(type: "webauthn.get", challenge: challenge, origin: origin)
        let data = try authenticatorData(rpID: rpID, flags: flags)
        let signature = try sign(data + Array(SHA256.hash(data: clientData)))
        let id = Base64URL.encode(credentialID)
        return AuthenticationResponseJSON(
            id: id, rawId: id, type: "public-key",
            response: .init(
                clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(data),
                signature: Base64URL.encode(signature), userHandle: userHandle.map { Base64URL.encode($0) }),
            authenticatorAttachment: "platform")
    }
}
