import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A fake issuer of opaque access tokens following RFC 7662 and OpenID Connect Discovery: a
/// real Hummingbird server with a discovery document, an empty key set and an introspection
/// endpoint that authenticates its caller (client_secret_basic) and answers from `tokens`.
final class FakeIntrospectionIssuer: Sendable {
    static let clientID = "gateway"
    static let clientSecret = "introspection-secret-1"
    /// Token → the introspection answer's members (without `active`).
    let tokens = Mutex<[String: [String: any Sendable]]>([:])
    /// Introspection calls so far.
    let calls = Mutex(0)
    let port: Int
    var issuer: String { "http://127.0.0.1:\(port)" }

    private init(port: Int) {
        self.port = port
    }

    static func with<T: Sendable>(_ body: @Sendable (FakeIntrospectionIssuer) async throws -> T) async throws -> T {
        let holder = Mutex<FakeIntrospectionIssuer?>(nil)
        let router = Router()
        router.get(".well-known/openid-configuration") { _, _ -> Response in
            guard let fake = holder.withLock({ $0 }) else { return Self.json(503, [:]) }
            return Self.json(
                200,
                [
                    "issuer": fake.issuer, "jwks_uri": fake.issuer + "/jwks",
                    "introspection_endpoint": fake.issuer + "/introspect",
                ])
        }
        router.get("jwks") { _, _ in Self.json(200, ["keys": [Any]()]) }
        router.post("introspect") { request, context -> Response in
            guard let fake = holder.withLock({ $0 }) else { return Self.json(503, [:]) }
            fake.calls.withLock { $0 += 1 }
            let expected = "Basic " + Data("\(clientID):\(clientSecret)".utf8).base64EncodedString()
            guard request.headers[.authorization] == expected else {
                return Self.json(401, ["error": "invalid_client"])
            }
            let body = try await request.body.collect(upTo: 16_384)
            let form = URLComponents(string: "?" + String(buffer: body))?.queryItems ?? []
            guard let token = form.first(where: { $0.name == "token" })?.value else {
                return Self.json(400, ["error": "invalid_request"])
            }
            guard let members = fake.tokens.withLock({ $0[token] }) else { return Self.json(200, ["active": false]) }
            return Self.json(200, members.merging(["active": true]) { $1 })
        }
        let (task, port) = try await LocalTestServer.start(router, label: "fake-introspection")
        defer { task.cancel() }
        let fake = FakeIntrospectionIssuer(port: port)
        holder.withLock { $0 = fake }
        return try await body(fake)
    }

    static func json(_ status: Int, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
