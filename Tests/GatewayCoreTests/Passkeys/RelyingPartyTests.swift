import Crypto
import Foundation
import Testing

@testable import GatewayCore

@Suite("WebAuthn relying party: registration and authentication answers, and every refusal")
struct RelyingPartyTests {
    static let origin = "https://demo.example"
    static let party = RelyingParty(id: "demo.example", origins: [origin, "android:apk-key-hash:abc"])
    static let challenge = [UInt8](repeating: 0x5C, count: 32)
    static let user: [UInt8] = Array("user-handle-1".utf8)

    func registered(_ authenticator: SoftwareAuthenticator) throws -> RegisteredPasskey {
        let verified = try Self.party.verifyRegistration(
            try authenticator.registration(rpID: "demo.example", challenge: Self.challenge, origin: Self.origin),
            challenge: Self.challenge)
        return RegisteredPasskey(
            credentialID: verified.credentialID, publicKey: verified.publicKey, signCount: verified.signCount,
            backupEligible: verified.backupEligible, userHandle: Self.user)
    }

    @Test("a passkey registered from the page or an Android app signs in; the counter moves forward")
    func registerThenSignIn() throws {
        for var authenticator in [SoftwareAuthenticator.es256(), .ed25519(), try .rs256()] {
            for (format, origin) in [("none", Self.origin), ("packed", "android:apk-key-hash:abc")] {
                let verified = try Self.party.verifyRegistration(
                    try authenticator.registration(
                        rpID: "demo.example", challenge: Self.challenge, origin: origin, format: format),
                    challenge: Self.challenge)
                #expect(
                    verified.credentialID == authenticator.credentialID && verified.algorithm == authenticator.algorithm
                )
                #expect(verified.attestationFormat == format && verified.transports == ["internal", "hybrid"])
                #expect(!verified.backupEligible && verified.signCount == 1)
            }
            let passkey = try registered(authenticator)
            authenticator.signCount = 2
            let used = try Self.party.verifyAssertion(
                try authenticator.assertion(
                    rpID: "demo.example", challenge: Self.challenge, origin: Self.origin, userHandle: Self.user),
                challenge: Self.challenge, passkey: passkey)
            #expect(used == VerifiedAssertion(signCount: 2, backedUp: false))
        }
    }

    @Test(
        "registration refused: wrong origin, RP ID, challenge, ceremony, user verification, cross-origin frame, mismatched IDs, bad attestation"
    )
    func registrationRefusals() throws {
        let authenticator = SoftwareAuthenticator.es256()
        func attempt(
            rpID: String = "demo.example", origin: String = Self.origin,
            flags: AuthenticatorData.Flags = [.userPresent, .userVerified],
            clientData: [UInt8]? = nil, challenge: [UInt8] = Self.challenge,
            edit: (inout RegistrationResponseJSON) -> Void = { _ in }
        )
            throws -> VerifiedRegistration
        {
            var answer = try authenticator.registration(
                rpID: rpID, challenge: Self.challenge, origin: origin, flags: flags, clientData: clientData)
            edit(&answer)
            return try Self.party.verifyRegistration(answer, challenge: challenge)
        }
        #expect(throws: PasskeyError.originNotAllowed("https://evil.example")) {
            try attempt(origin: "https://evil.example")
        }
        #expect(throws: PasskeyError.rpIDMismatch) { try attempt(rpID: "evil.example") }
        #expect(throws: PasskeyError.challengeMismatch) { try attempt(challenge: [UInt8](repeating: 1, count: 32)) }
        #expect(throws: PasskeyError.wrongCeremony) {
            try attempt(
                clientData: SoftwareAuthenticator.clientData(
                    type: "webauthn.get", challenge: Self.challenge, origin: Self.origin))
        }
        #expect(throws: PasskeyError.crossOrigin) {
            try attempt(
                clientData: SoftwareAuthenticator.clientData(
                    type: "webauthn.create", challenge: Self.challenge, origin: Self.origin, crossOrigin: true))
        }
        #expect(throws: PasskeyError.malformed("clientDataJSON is not the client data")) {
            try attempt(clientData: Array("{}".utf8))
        }
        #expect(throws: PasskeyError.userNotVerified) { try attempt(flags: [.userPresent]) }
        #expect(throws: PasskeyError.userNotPresent) { try attempt(flags: [.userVerified]) }
        #expect(throws: PasskeyError.credentialMismatch) {
            try attempt {
                $0.id = Base64URL.encode([9, 9])
                $0.rawId = $0.id
            }
        }
        #expect(throws: PasskeyError.malformed("id and rawId are not the same base64url credential ID")) {
            try attempt { $0.id = Base64URL.encode([9, 9]) }
        }
        #expect(throws: PasskeyError.malformed("type is not public-key")) { try attempt { $0.type = "password" } }
        #expect(throws: PasskeyError.malformed("clientDataJSON or attestationObject is not base64url")) {
            try attempt { $0.response.attestationObject = "***" }
        }
        // The attestation object was made for other client data: the packed signature fails.
        let other = SoftwareAuthenticator.clientData(
            type: "webauthn.create", challenge: Self.challenge, origin: Self.origin)
        var answer = try authenticator.registration(
            rpID: "demo.example", challenge: Self.challenge, origin: Self.origin, format: "packed")
        answer.response.clientDataJSON = Base64URL.encode(other + Array(" ".utf8))
        #expect(
            throws: PasskeyError.malformed("attestation(\"the packed self-attestation signature does not verify\")")
        ) {
            try Self.party.verifyRegistration(answer, challenge: Self.challenge)
        }
    }

    @Test(
        "authentication refused: tampered signature, counter gone back, unknown or another user's credential, wrong origin, RP ID, challenge, no user verification, backup eligibility changed"
    )
    func assertionRefusals() throws {
        var authenticator = SoftwareAuthenticator.es256()
        authenticator.signCount = 10
        let passkey = try registered(authenticator)
        func attempt(
            _ authenticator: SoftwareAuthenticator = authenticator, rpID: String = "demo.example",
            origin: String = Self.origin,
            userHandle: [UInt8]? = Self.user, flags: AuthenticatorData.Flags = [.userPresent, .userVerified],
            challenge: [UInt8] = Self.challenge, stored: RegisteredPasskey? = nil,
            edit: (inout AuthenticationResponseJSON) -> Void = { _ in }
        ) throws -> VerifiedAssertion {
            var used = authenticator
            used.signCount = authenticator.signCount + 1
            var answer = try used.assertion(
                rpID: rpID, challenge: Self.challenge, origin: origin, userHandle: userHandle, flags: flags)
            edit(&answer)
            return try Self.party.verifyAssertion(answer, challenge: challenge, passkey: stored ?? passkey)
        }
        #expect(try attempt().signCount == 11)
        #expect(try attempt(userHandle: nil).signCount == 11)
        #expect(throws: PasskeyError.signatureInvalid) {
            try attempt { answer in
                var signature = Array(Base64URL.decode(answer.response.signature)!)
                signature[signature.count - 3] ^= 0x40
                answer.response.signature = Base64URL.encode(signature)
            }
        }
        #expect(throws: PasskeyError.signatureInvalid) {
            // Another key made the signature over the same data: only this credential's key counts.
            var impostor = SoftwareAuthenticator.es256()
            impostor.credentialID = authenticator.credentialID
            impostor.signCount = 10
            return try attempt(impostor)
        }
        var stale = passkey
        stale.signCount = 11
        #expect(throws: PasskeyError.counterWentBack(stored: 11, received: 11)) { try attempt(stored: stale) }
        var cloned = authenticator
        cloned.signCount = 3
        #expect(throws: PasskeyError.counterWentBack(stored: 10, received: 4)) { try attempt(cloned) }
        var other = authenticator
        other.credentialID = [1, 2, 3]
        #expect(throws: PasskeyError.credentialMismatch) { try attempt(other) }
        #expect(throws: PasskeyError.credentialMismatch) { try attempt(userHandle: Array("someone else".utf8)) }
        #expect(throws: PasskeyError.originNotAllowed("https://demo.example.evil")) {
            try attempt(origin: "https://demo.example.evil")
        }
        #expect(throws: PasskeyError.rpIDMismatch) { try attempt(rpID: "other.example") }
        #expect(throws: PasskeyError.challengeMismatch) { try attempt(challenge: Array(Self.challenge.dropLast())) }
        #expect(throws: PasskeyError.userNotVerified) { try attempt(flags: [.userPresent]) }
        #expect(throws: PasskeyError.backupEligibilityChanged) {
            try attempt(flags: [.userPresent, .userVerified, .backupEligible])
        }
        #expect(throws: PasskeyError.wrongCeremony) {
            try attempt { answer in
                answer.response.clientDataJSON = Base64URL.encode(
                    SoftwareAuthenticator.clientData(
                        type: "webauthn.create", challenge: Self.challenge, origin: Self.origin))
            }
        }
        // A counter that is never used (zero on both sides) is accepted.
        var counterless = SoftwareAuthenticator.ed25519()
        counterless.signCount = 0
        var zero = try registered(counterless)
        zero.signCount = 0
        let answer = try counterless.assertion(
            rpID: "demo.example", challenge: Self.challenge, origin: Self.origin, userHandle: Self.user)
        #expect(try Self.party.verifyAssertion(answer, challenge: Self.challenge, passkey: zero).signCount == 0)
    }
}
