import Crypto
import Foundation
import TestSupport
import Testing

@testable import GatewayCore

@Suite("Passkey formats: COSE keys, authenticator data, attestation objects")
struct PasskeyFormatTests {
    static let rpID = "demo.example"
    static let clientDataHash = Array(SHA256.hash(data: Data("client data".utf8)))

    @Test("ES256, RS256 and Ed25519 keys are read from their COSE_Key and verify their own signatures only")
    func keysVerify() throws {
        for authenticator in [SoftwareAuthenticator.es256(), try .rs256(), .ed25519()] {
            let key = try COSEKey(try authenticator.coseKey())
            #expect(key.algorithm == authenticator.algorithm)
            let data = Array("signed bytes".utf8)
            let signature = try authenticator.sign(data)
            #expect(key.isValidSignature(signature, for: data))
            #expect(!key.isValidSignature(signature, for: data + [0]))
            var tampered = signature
            tampered[tampered.count / 2] ^= 0x01
            #expect(!key.isValidSignature(tampered, for: data))
            #expect(!key.isValidSignature([], for: data))
            // Another authenticator of the same kind signs in vain.
            let other = try COSEKey(try SoftwareAuthenticator.es256().coseKey())
            #expect(!other.isValidSignature(signature, for: data))
        }
    }

    @Test(
        "COSE keys refused: not a map, a member missing, type and algorithm at odds, a point off the curve, a short RSA key"
    )
    func keyRefusals() throws {
        let good = try SoftwareAuthenticator.es256().coseKey()
        func with(_ label: Int, _ value: CBOR?) -> CBOR {
            var pairs = good.pairs!.filter { $0.key != .int(label) }
            if let value { pairs.append(.init(.int(label), value)) }
            return .map(pairs)
        }
        let cases: [(CBOR, COSEKeyError)] = [
            (.array([]), .notAMap),
            (with(1, nil), .missing("kty")),
            (with(3, nil), .missing("alg")),
            (with(-2, nil), .missing("x")),
            (with(-3, .bytes([1, 2])), .invalid("y is not 32 bytes")),
            (with(-1, .int(2)), .invalid("ES256 needs the P-256 curve")),
            (with(-3, .bytes([UInt8](repeating: 7, count: 32))), .invalid("not a point on P-256")),
            (with(3, .int(-35)), .unsupportedAlgorithm(-35)),
            (with(3, .int(-257)), .unsupportedAlgorithm(-257)),
            (with(1, .int(4)), .unsupportedKeyType(4)),
            (.map(good.pairs! + [.init(.text("x"), .null)]), .invalid("a label is not an integer")),
            (
                .map([
                    .init(.int(1), .int(3)), .init(.int(3), .int(-257)),
                    .init(.int(-1), .bytes([UInt8](repeating: 0xC1, count: 128))),
                    .init(.int(-2), .bytes([1, 0, 1])),
                ]), .invalid("not an RSA key of 2048 bits or more")
            ),
        ]
        for (item, error) in cases {
            #expect(throws: error, "\(item)") { try COSEKey(item) }
        }
    }

    @Test("authenticator data: hash, flags, counter, the attested credential with its key, extensions")
    func authenticatorData() throws {
        var authenticator = SoftwareAuthenticator.es256()
        authenticator.signCount = 0x0102_0304
        let extensions = CBOR.map([.init(.text("credProtect"), .unsigned(2))])
        let bytes = try authenticator.authenticatorData(
            rpID: Self.rpID, flags: [.userPresent, .userVerified, .backupEligible, .backedUp], attested: true,
            extensions: extensions)
        let data = try AuthenticatorData(bytes)
        #expect(data.rpIDHash == Array(SHA256.hash(data: Data(Self.rpID.utf8))))
        #expect(
            data.flags == [
                .userPresent, .userVerified, .backupEligible, .backedUp, .attestedCredentialData, .extensionData,
            ])
        #expect(data.signCount == 0x0102_0304 && data.bytes == bytes && data.extensions == extensions)
        let credential = try #require(data.attestedCredential)
        #expect(credential.credentialID == authenticator.credentialID && credential.aaguid == authenticator.aaguid)
        #expect(credential.publicKeyBytes == CBOREncoder.encode(try authenticator.coseKey()))
        #expect(credential.publicKey.algorithm == -7)

        let assertion = try AuthenticatorData(try authenticator.authenticatorData(rpID: Self.rpID))
        #expect(
            assertion.attestedCredential == nil && assertion.extensions == nil
                && assertion.flags == [.userPresent, .userVerified])
    }

    @Test(
        "authenticator data refused: short, truncated parts, trailing bytes, backed up without eligibility, bad credential IDs"
    )
    func authenticatorDataRefusals() throws {
        var authenticator = SoftwareAuthenticator.es256()
        let attested = try authenticator.authenticatorData(rpID: Self.rpID, attested: true)
        let plain = try authenticator.authenticatorData(rpID: Self.rpID)
        let cases: [([UInt8], PasskeyFormatError)] = [
            (Array(plain.prefix(36)), .authenticatorData("shorter than 37 bytes")),
            (plain + [0], .authenticatorData("1 bytes after the data")),
            (Array(attested.prefix(50)), .authenticatorData("attested credential data truncated")),
            (Array(attested.prefix(60)), .authenticatorData("credential ID truncated")),
            // The key starts at 71 (37 + 16 + 2 + 16); its y member's bytes at 114.
            (Array(attested.dropLast()), .cbor("credential public key", .truncated(at: 114))),
        ]
        for (bytes, error) in cases {
            #expect(throws: error) { try AuthenticatorData(bytes) }
        }
        var flagged = plain
        flagged[32] |= AuthenticatorData.Flags.backedUp.rawValue
        #expect(throws: PasskeyFormatError.authenticatorData("backed up but not backup eligible")) {
            try AuthenticatorData(flagged)
        }
        flagged = plain
        flagged[32] |= AuthenticatorData.Flags.extensionData.rawValue
        #expect(throws: PasskeyFormatError.cbor("extensions", .truncated(at: 37))) { try AuthenticatorData(flagged) }
        #expect(throws: PasskeyFormatError.authenticatorData("extensions are not a map")) {
            try AuthenticatorData(flagged + [0x01])
        }
        authenticator.credentialID = []
        #expect(throws: PasskeyFormatError.authenticatorData("credential ID of 0 bytes")) {
            try AuthenticatorData(try authenticator.authenticatorData(rpID: Self.rpID, attested: true))
        }
        authenticator.credentialID = [UInt8](repeating: 1, count: 1_024)
        #expect(throws: PasskeyFormatError.authenticatorData("credential ID of 1024 bytes")) {
            try AuthenticatorData(try authenticator.authenticatorData(rpID: Self.rpID, attested: true))
        }
    }

    @Test(
        "attestation: none and packed self-attestation accepted; a packed signature over other client data, a certificate, another format refused"
    )
    func attestation() throws {
        for authenticator in [SoftwareAuthenticator.es256(), .ed25519(), try .rs256()] {
            for format in ["none", "packed"] {
                let bytes = try authenticator.attestationObject(
                    rpID: Self.rpID, clientDataHash: Self.clientDataHash, format: format)
                let object = try AttestationObject(bytes, clientDataHash: Self.clientDataHash)
                #expect(object.format == format && object.credential.credentialID == authenticator.credentialID)
            }
            let packed = try authenticator.attestationObject(
                rpID: Self.rpID, clientDataHash: Self.clientDataHash, format: "packed")
            #expect(throws: PasskeyFormatError.attestation("the packed self-attestation signature does not verify")) {
                try AttestationObject(packed, clientDataHash: Array(Self.clientDataHash.reversed()))
            }
        }
        let authenticator = SoftwareAuthenticator.es256()
        let object = try CBORDecoder().decode(
            try authenticator.attestationObject(rpID: Self.rpID, clientDataHash: Self.clientDataHash, format: "packed"))
        func replacing(_ name: String, _ value: CBOR?) -> [UInt8] {
            var pairs = object.pairs!.filter { $0.key != .text(name) }
            if let value { pairs.append(.init(.text(name), value)) }
            return CBOREncoder.encode(.map(pairs))
        }
        let statement = object["attStmt"]!
        let cases: [([UInt8], PasskeyFormatError)] = [
            (replacing("fmt", nil), .attestation("no fmt")),
            (replacing("fmt", .text("tpm")), .attestation("format tpm is not accepted")),
            (replacing("fmt", .text("none")), .attestation("a none statement that is not empty")),
            (
                replacing("attStmt", .map(statement.pairs! + [.init(.text("x5c"), .array([.bytes([1])]))])),
                .attestation("packed attestation with a certificate is not accepted")
            ),
            (
                replacing("attStmt", .map([.init(.text("alg"), .int(-257)), .init(.text("sig"), statement["sig"]!)])),
                .attestation("the packed statement's alg is not the credential's")
            ),
            (
                replacing("authData", .bytes(try authenticator.authenticatorData(rpID: Self.rpID))),
                .attestation("no attested credential")
            ),
            (replacing("authData", nil), .attestation("no authData")),
            (
                replacing("authData", nil) + [0],
                .cbor("attestation object", .trailingBytes(at: replacing("authData", nil).count))
            ),
        ]
        for (bytes, error) in cases {
            #expect(throws: error) { try AttestationObject(bytes, clientDataHash: Self.clientDataHash) }
        }
    }

    @Test("fuzz: mutated attestation objects never crash the readers (seeded)")
    func fuzz() throws {
        var random = SeededRandom(seed: 64)
        let authenticator = SoftwareAuthenticator.es256()
        let valid = try authenticator.attestationObject(
            rpID: Self.rpID, clientDataHash: Self.clientDataHash, format: "packed")
        let data = try authenticator.authenticatorData(rpID: Self.rpID, attested: true, extensions: .map([]))
        var accepted = 0
        for round in 0..<5_000 {
            var bytes = round % 2 == 0 ? valid : data
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                }
            }
            if round % 2 == 0 {
                if (try? AttestationObject(bytes, clientDataHash: Self.clientDataHash)) != nil { accepted += 1 }
            } else if (try? AuthenticatorData(bytes)) != nil {
                accepted += 1
            }
        }
        // Most mutations are caught; the ones accepted changed what no check covers (a hash byte, the counter).
        #expect(accepted < 2_500, "\(accepted)")
    }
}
