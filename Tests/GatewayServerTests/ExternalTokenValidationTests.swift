import Crypto
import Foundation
import GatewayCore
import Testing

/// ``ExternalJWTValidator`` against a real issuer: tenant `corp` of a running gateway, its
/// key set fetched over HTTP through discovery. Tokens are signed with corp's real keys, so
/// each refusal below is for the one claim or header that is wrong.
@Suite("External token validation")
struct ExternalTokenValidationTests {
    @Test func upstreamTokensAreRefusedForTheRightReasons() async throws {
        try await GatewayHarness.withGateway { harness, _, port in
            try await harness.createTenant(Tenant(id: "corp", displayName: "Corp"), signIn: false)
            let issuer = "http://127.0.0.1:\(port)/t/corp"
            let federation = harness.bootstrap.services.federation
            let metadata = try await federation.issuers.metadata(tenantID: "shop", issuer: issuer)
            #expect(metadata.jwksURI.hasPrefix(issuer))
            let keys = harness.bootstrap.services.auth.keys
            let es256 = try await keys.signingKey(tenantID: "corp", algorithm: .es256)
            let rs256 = try await keys.signingKey(tenantID: "corp", algorithm: .rs256)
            let now = Int(Date().timeIntervalSince1970)
            func claims(_ change: (inout [String: JSONValue]) -> Void = { _ in }) -> [String: JSONValue] {
                var c: [String: JSONValue] = [
                    "iss": .string(issuer), "sub": "u-1", "aud": "shop-gw", "exp": .number(Double(now + 300)),
                    "iat": .number(Double(now)), "nonce": "n-1",
                ]
                change(&c)
                return c
            }
            let expectation = ExternalJWTValidator.Expectation(
                issuer: issuer, audience: "shop-gw", jwksURI: metadata.jwksURI, nonce: "n-1")
            func verdict(_ token: String) async -> String {
                do {
                    _ = try await federation.validator.validate(token, tenantID: "shop", expecting: expectation)
                    return "ok"
                } catch FederationError.tokenRejected(let reason) {
                    return reason
                } catch {
                    return "unexpected \(error)"
                }
            }
            #expect(await verdict(try JWS.sign(claims: claims(), typ: "JWT", signingKey: es256)) == "ok")
            #expect(await verdict(try JWS.sign(claims: claims(), typ: "JWT", signingKey: rs256)) == "ok")
            #expect(
                await verdict(try JWS.sign(claims: claims { $0["nonce"] = "other" }, typ: "JWT", signingKey: es256))
                    .contains("nonce"))
            #expect(
                await verdict(
                    try JWS.sign(claims: claims { $0["aud"] = "someone-else" }, typ: "JWT", signingKey: es256)
                ).contains("audience"))
            #expect(
                await verdict(
                    try JWS.sign(
                        claims: claims {
                            $0["aud"] = .array(["shop-gw", "b"])
                            $0["azp"] = "b"
                        }, typ: "JWT", signingKey: es256)
                ).contains("azp"))
            #expect(
                await verdict(
                    try JWS.sign(claims: claims { $0["iss"] = "https://evil.example" }, typ: "JWT", signingKey: es256)
                ).contains("issuer"))
            #expect(
                await verdict(
                    try JWS.sign(
                        claims: claims { $0["exp"] = .number(Double(now - 120)) }, typ: "JWT", signingKey: es256))
                    == "expired")
            #expect(
                await verdict(
                    try JWS.sign(
                        claims: claims { $0["nbf"] = .number(Double(now + 600)) }, typ: "JWT", signingKey: es256)
                ).contains("nbf"))
            // alg none, HS256 (with the public key as HMAC secret: the classic confusion) and a key not in the set.
            let payload = Base64URL.encode(try JSONValue.object(claims()).encoded())
            let none = Base64URL.encode(Data(#"{"alg":"none","kid":"\#(es256.kid)"}"#.utf8)) + "." + payload + "."
            #expect(await verdict(none).contains("not accepted"))
            let hsInput = Base64URL.encode(Data(#"{"alg":"HS256","kid":"\#(es256.kid)"}"#.utf8)) + "." + payload
            let mac = HMAC<SHA256>.authenticationCode(
                for: Data(hsInput.utf8), using: SymmetricKey(data: Data(es256.kid.utf8)))
            #expect(await verdict(hsInput + "." + Base64URL.encode(Data(mac))).contains("not accepted"))
            let stranger = try JWS.sign(claims: claims(), typ: "JWT", kid: es256.kid, key: P256.Signing.PrivateKey())
            #expect(await verdict(stranger) == "bad signature")
            let unknownKid = try JWS.sign(
                claims: claims(), typ: "JWT", kid: "k-unknown", key: P256.Signing.PrivateKey())
            #expect(await verdict(unknownKid).contains("not in the issuer's key set"))
        }
    }

    @Test func aDiscoveryDocumentNamingAnotherIssuerIsRefused() async throws {
        try await GatewayHarness.withGateway { harness, _, port in
            try await harness.createTenant(Tenant(id: "corp", displayName: "Corp"), signIn: false)
            // `.../t/corp/` (trailing slash) is not the issuer `.../t/corp` the document names.
            await #expect(throws: FederationError.self) {
                _ = try await harness.bootstrap.services.federation.issuers.metadata(
                    tenantID: "shop", issuer: "http://127.0.0.1:\(port)/t/corp/")
            }
        }
    }
}
