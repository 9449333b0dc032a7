import Crypto
import Foundation
import GatewayCore
import Testing

@Suite("Auth building blocks")
struct AuthCoreTests {
    @Test("RFC 7636 Appendix B: S256 challenge of the example verifier")
    func rfc7636Vector() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier: verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
    }

    @Test("verifier grammar: 43-128 unreserved characters")
    func verifierGrammar() {
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42)))
        #expect(PKCE.isValidVerifier(String(repeating: "a", count: 43)))
        #expect(PKCE.isValidVerifier(String(repeating: "~", count: 128)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "+"))
    }

    @Test("ES256 JWS round trip; alg none and tampering are refused")
    func jws() throws {
        let key = P256.Signing.PrivateKey()
        let token = try JWS.sign(claims: ["sub": "x"], typ: "at+jwt", kid: "k", key: key)
        try JWS.verify(try JWS.parse(token), key: key.publicKey)
        let parts = token.split(separator: ".")
        let none = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + "."
        #expect(throws: JWS.Failure.unsupportedAlgorithm) { try JWS.verify(try JWS.parse(none), key: key.publicKey) }
        let tampered = parts[0] + "." + Base64URL.encode(Data(#"{"sub":"y"}"#.utf8)) + "." + parts[2]
        #expect(throws: JWS.Failure.badSignature) { try JWS.verify(try JWS.parse(tampered), key: key.publicKey) }
    }

    @Test("redirect URIs: exact match; loopback differs only in port")
    func redirects() {
        let client = OAuthClient(
            tenantID: "t", clientID: "c", redirectURIs: ["https://app.example/cb", "http://127.0.0.1/callback"])
        #expect(client.acceptsRedirect("https://app.example/cb"))
        #expect(!client.acceptsRedirect("https://app.example/cb/"))
        #expect(!client.acceptsRedirect("https://app.example/cbx"))
        #expect(!client.acceptsRedirect("https://app.example/cb?x=1"))
        #expect(!client.acceptsRedirect("https://app.example.evil/cb"))
        #expect(client.acceptsRedirect("http://127.0.0.1:4711/callback"))
        #expect(!client.acceptsRedirect("http://127.0.0.1:4711/callback2"))
        #expect(!client.acceptsRedirect("https://app.example:8443/cb"))
    }

    @Test("scrypt password hashes verify only the right password")
    func passwords() throws {
        let hasher = PasswordHasher(logN: 10)
        let hash = try hasher.hash("s3cret-password")
        #expect(hash.hasPrefix("scrypt$10$8$1$"))
        #expect(hasher.verify("s3cret-password", against: hash))
        #expect(!hasher.verify("s3cret-passwore", against: hash))
        #expect(try hasher.hash("s3cret-password") != hash)
    }

    @Test("JWK thumbprint follows RFC 7638 member order")
    func thumbprint() throws {
        let key = P256.Signing.PrivateKey()
        let jwk = JWK.publicJWK(key.publicKey)
        #expect(JWK.p256PublicKey(jwk)?.rawRepresentation == key.publicKey.rawRepresentation)
        #expect(JWK.thumbprint(key.publicKey).count == 43)
    }
}

@Suite("Signing key ids")
struct SigningKeyIDTests {
    @Test("kids never start with '-' or '_' (a command line would read them as flags)")
    func kidsStartWithALetter() throws {
        for _ in 0..<200 {
            let kid = try SigningKey.generate(tenantID: "acme").kid
            #expect(kid.first?.isLetter == true, "\(kid)")
            #expect(kid.count == 16)
        }
    }
}

@Suite("RS256 ID-token signatures")
struct RS256Tests {
    @Test("RS256 signs and verifies; a header naming another algorithm than the key's, or one not accepted, is refused")
    func signAndVerify() throws {
        let rsa = try SigningKey.generate(tenantID: "acme", algorithm: .rs256)
        let ec = try SigningKey.generate(tenantID: "acme")
        #expect(rsa.kid.hasPrefix("r") && rsa.kid.count == 16)
        let token = try JWS.sign(claims: ["sub": "alice"], typ: "JWT", signingKey: rsa)
        let parsed = try JWS.parse(token)
        #expect(parsed.header["alg"] == "RS256" && parsed.header["kid"]?.stringValue == rsa.kid)
        try JWS.verify(parsed, key: rsa.verificationKey, accepted: [.rs256, .es256])
        // Access-token verification accepts ES256 only.
        #expect(throws: JWS.Failure.unsupportedAlgorithm) {
            try JWS.verify(parsed, key: rsa.verificationKey, accepted: [.es256])
        }
        // An RS256 header verified against an EC key (or the reverse) never passes.
        #expect(throws: JWS.Failure.unsupportedAlgorithm) {
            try JWS.verify(parsed, key: ec.verificationKey, accepted: [.rs256, .es256])
        }
        let other = try SigningKey.generate(tenantID: "acme", algorithm: .rs256)
        #expect(throws: JWS.Failure.badSignature) {
            try JWS.verify(parsed, key: other.verificationKey, accepted: [.rs256])
        }
        // The JWK is RSA with n and e, and the key survives its PEM.
        let jwk = rsa.publicJWK
        #expect(jwk["kty"] == "RSA" && jwk["alg"] == "RS256")
        #expect((jwk["n"]?.stringValue.flatMap(Base64URL.decode)?.count ?? 0) == 256)
        #expect(jwk["e"]?.stringValue == "AQAB")
        let restored = try SigningKey(
            tenantID: "acme", kid: rsa.kid, state: .active, createdAt: rsa.createdAt, pem: rsa.pemRepresentation)
        #expect(restored.algorithm == .rs256)
        try JWS.verify(parsed, key: restored.verificationKey, accepted: [.rs256])
    }
}

@Suite("DPoP server nonces")
struct DPoPNonceTests {
    @Test("a nonce holds in its window and the next, for its tenant only, and cannot be forged")
    func windows() {
        let nonces = DPoPNonces(masterKey: .generate(), window: 300)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let nonce = nonces.current(tenantID: "acme", now: start)
        #expect(nonces.isValid(nonce, tenantID: "acme", now: start))
        #expect(nonces.isValid(nonce, tenantID: "acme", now: start.addingTimeInterval(300)))
        #expect(!nonces.isValid(nonce, tenantID: "acme", now: start.addingTimeInterval(600)))
        #expect(!nonces.isValid(nonce, tenantID: "beta", now: start))
        #expect(!nonces.isValid("1800.forged", tenantID: "acme", now: start))
        // Another gateway with another master key does not accept it; one with the same key does.
        #expect(!DPoPNonces(masterKey: .generate()).isValid(nonce, tenantID: "acme", now: start))
    }
}
