import AsyncHTTPClient
import Crypto
import Foundation
import GatewayCore
import NIOCore
import NIOSSL

/// The fake APNs provider API (`Tests/Interop/fake_apns.py`: HTTP/2 only, TLS with a throwaway
/// CA, Apple's headers, JWT checks and error reasons) run as a child process, with an HTTP
/// client that trusts its CA and talks HTTP/2 to it.
final class FakeAPNs: Sendable {
    static let teamID = "TEAM123456"
    static let keyID = "ABC123DEFG"
    static let topic = "com.example.superapp"
    static var available: Bool { PythonScript.canImport("hypercorn, h2, cryptography") }

    let port: Int
    let client: HTTPClient
    let key: P256PrivateKeyPEM
    var baseURL: String { "https://127.0.0.1:\(port)" }

    /// The signing key as PEM (the `.p8` an operator would paste).
    struct P256PrivateKeyPEM: Sendable {
        let pem: String
    }

    private init(port: Int, client: HTTPClient, key: P256PrivateKeyPEM) {
        self.port = port
        self.client = client
        self.key = key
    }

    var credentials: PushCredentials {
        get throws {
            .apns(
                try APNsCredentials(
                    keyID: Self.keyID, teamID: Self.teamID, topic: Self.topic, environment: .production,
                    privateKey: key.pem))
        }
    }

    static func with<T: Sendable>(_ body: @Sendable (FakeAPNs) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let signingKey = P256.Signing.PrivateKey()
        let publicKeyFile = folder.appendingPathComponent("public.pem")
        try Data(signingKey.publicKey.pemRepresentation.utf8).write(to: publicKeyFile)
        return try await PythonScript.serving(
            "fake_apns.py", [folder.path, teamID, keyID, publicKeyFile.path, topic]
        ) { started in
            let port = try started.get()
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(folder.appendingPathComponent("ca.pem").path))
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.httpVersion = .automatic
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let fake = FakeAPNs(
                port: port, client: client, key: P256PrivateKeyPEM(pem: signingKey.pemRepresentation))
            do {
                let value = try await body(fake)
                try await client.shutdown()
                return value
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    enum FakeAPNsError: Error {
        case control(Int)
    }

    /// Calls a control endpoint; returns its JSON.
    @discardableResult
    func control(_ path: String, _ document: Any = [String: Any]()) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: baseURL + "/control/" + path)
        request.method = .POST
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: document)))
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        guard response.status == .ok else { throw FakeAPNsError.control(Int(response.status.code)) }
        return (try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]) ?? [:]
    }

    /// Notifications accepted so far, in order.
    func received() async throws -> [[String: Any]] {
        try await control("received")["received"] as? [[String: Any]] ?? []
    }

    /// `iat` of every distinct provider token APNs accepted.
    func providerTokensIssuedAt() async throws -> [Int] {
        try await control("received")["jwtIssuedAt"] as? [Int] ?? []
    }
}
