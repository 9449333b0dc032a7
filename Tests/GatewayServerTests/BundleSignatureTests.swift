import Crypto
import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Bundle signature verification (ECDSA P-256 over versionId + hex SHA-256(zip))")
struct BundleSignatureTests {
    static let zip: [UInt8] = Array("PK\u{3}\u{4} pretend zip bytes".utf8)

    static func sign(_ key: P256.Signing.PrivateKey, versionID: String, zip: [UInt8]) throws -> String {
        let digest = SHA256.hash(data: zip).map { String(format: "%02x", $0) }.joined()
        return try key.signature(for: Data((versionID + digest).utf8)).derRepresentation.base64EncodedString()
    }

    /// Serves `hello/v1` signed by `signer` (nil = unsigned) with the public key of `key`.
    static func seed(_ fake: FakePlatform, key: P256.Signing.PrivateKey, signer: P256.Signing.PrivateKey?) throws {
        let signature = try signer.map { try sign($0, versionID: "v1", zip: zip) }
        fake.set { state in
            state.files["/files/hello-v1.zip"] = zip
            state.keys["key-1"] = PlatformPublicKey(
                id: "key-1", ecKey: key.publicKey.x963Representation.base64EncodedString(),
                pemKey: key.publicKey.pemRepresentation)
            state.fileManifests["hello/v1"] = PlatformFileManifest(
                files: ["\(fake.baseURL)/files/hello-v1.zip"], publicKeyID: signature == nil ? nil : "key-1",
                signature: signature)
        }
    }

    @Test("valid, invalid and unsigned verdicts; required verification refuses with 422")
    func verdicts() async throws {
        let key = P256.Signing.PrivateKey()
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let lenient = uniqueTenantID("sig")
                let strict = uniqueTenantID("strict")
                try await harness.createTenant(GatewayHarness.tenant(lenient, on: fake))
                try await harness.createTenant(GatewayHarness.tenant(strict, on: fake, requireSignature: true))
                let path = { (tenant: String) in
                    Operations.GetMiniAppBundle.Input.Path(tenant: tenant, id: "hello", versionId: "v1")
                }

                try Self.seed(fake, key: key, signer: key)
                let valid = try await client.getMiniAppBundle(path: path(lenient)).ok.body.json
                #expect(valid.verification.status == .valid)
                #expect(valid.publicKeyId == "key-1")
                _ = try await client.getMiniAppBundle(path: path(strict)).ok
                #expect(fake.requests(matching: "/files/hello-v1.zip").count == 2)

                // A different signer: invalid. Cold answers, so the cached verdicts do not answer.
                try Self.seed(fake, key: key, signer: P256.Signing.PrivateKey())
                try await harness.coldAnswers(lenient, round: "2")
                try await harness.coldAnswers(strict, round: "2")
                let invalid = try await client.getMiniAppBundle(path: path(lenient)).ok.body.json
                #expect(invalid.verification.status == .invalid)
                let refused = try await client.getMiniAppBundle(path: path(strict))
                #expect(try refused.unprocessableContent.body.applicationProblemJson.code == "invalid_signature")

                try Self.seed(fake, key: key, signer: nil)
                try await harness.coldAnswers(lenient, round: "3")
                try await harness.coldAnswers(strict, round: "3")
                #expect(
                    try await client.getMiniAppBundle(path: path(lenient)).ok.body.json.verification.status == .unsigned
                )
                #expect(
                    try await client.getMiniAppBundle(path: path(strict)).unprocessableContent.body
                        .applicationProblemJson.code == "invalid_signature")
            }
        }
    }
}
