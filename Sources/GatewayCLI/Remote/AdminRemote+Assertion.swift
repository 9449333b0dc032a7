import AdminAPI
import Foundation
import GatewayCore

/// A service account's `private_key_jwt` sign-in (RFC 7523 §2.2): gatewayctl signs a
/// one-minute assertion with the account's private key (PEM, EC P-256 or RSA) for the token
/// endpoint; the gateway checks it against the public keys registered with `--jwks-file`.
extension AdminRemote {
    /// Signs in `clientID` with the private key in the PEM file at `keyFile`.
    static func signIn(
        server: String, clientID: String, privateKeyFile keyFile: String, context: CLIContext
    )
        async throws -> AdminSession
    {
        let data = try InputFile.read(keyFile, context: context)
        guard data.count <= 16_384, let pem = String(data: data, encoding: .utf8),
            let key = try? SigningKey(tenantID: "", kid: "assertion", state: .active, createdAt: Date(), pem: pem)
        else { throw CLIError.invalid("--private-key-file: \(keyFile) is not a PEM private key (EC P-256 or RSA)") }
        let now = Date()
        let assertion = try JWS.sign(
            claims: [
                "iss": .string(clientID), "sub": .string(clientID), "aud": .string(server + "/admin/oauth2/token"),
                "iat": .number(now.timeIntervalSince1970.rounded(.down)),
                "exp": .number(now.timeIntervalSince1970.rounded(.down) + 60),
                "jti": .string(Base64URL.random(byteCount: 16)),
            ],
            header: ["alg": .string(key.algorithm.rawValue), "typ": "JWT"], signer: key.sign)
        return try await serviceAccountSession(
            server: server,
            form: .init(
                grantType: "client_credentials", clientId: clientID,
                clientAssertionType: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", clientAssertion: assertion),
            refused: "the assertion of \(clientID)")
    }
}
