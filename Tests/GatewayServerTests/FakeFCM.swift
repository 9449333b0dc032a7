import Crypto
import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import _CryptoExtras

/// A fake Firebase: Google's OAuth token endpoint (RFC 7523 JWT bearer grant, the assertion's
/// RS256 signature, issuer, audience and scope checked) and the FCM HTTP v1 `messages:send`
/// endpoint (bearer token checked, Google's error model on failures), on a real socket.
/// Scripted answers per device token inject faults.
final class FakeFCM: Sendable {
    /// What one `messages:send` call carried.
    struct Received: Sendable {
        var token: String
        var title: String?
        var body: String?
        var data: [String: String]
        var collapseKey: String?
        var androidPriority: String?
    }

    /// A scripted answer: status, Google's error status and FCM error code, headers.
    struct Answer: Sendable {
        var status: Int
        var errorStatus: String
        var errorCode: String?
        var retryAfter: String?

        static let unregistered = Answer(status: 404, errorStatus: "NOT_FOUND", errorCode: "UNREGISTERED")
        static func quota(retryAfter: String) -> Answer {
            Answer(status: 429, errorStatus: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED", retryAfter: retryAfter)
        }
        static let unavailable = Answer(status: 503, errorStatus: "UNAVAILABLE", errorCode: "UNAVAILABLE")
    }

    static let projectID = "demo-project"
    static let clientEmail = "push@demo-project.iam.gserviceaccount.com"
    let key: _RSA.Signing.PrivateKey
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }
    var tokenURI: String { baseURL + "/token" }
    /// Accepted sends, in order.
    let received = Mutex<[Received]>([])
    /// Every send call (accepted or not).
    let sendCalls = Mutex(0)
    /// Token endpoint calls.
    let tokenCalls = Mutex(0)
    /// Answers to give, by device token, first one first (then: accepted).
    let script = Mutex<[String: [Answer]]>([:])
    /// Device tokens that are dead for good.
    let deadTokens = Mutex<Set<String>>([])
    /// Access tokens issued and still honoured.
    let liveAccessTokens = Mutex<Set<String>>([])
    /// Latency of every send.
    let latency = Mutex<Duration>(.zero)

    private init(port: Int, key: _RSA.Signing.PrivateKey) {
        self.port = port
        self.key = key
    }

    /// The service account file Google's console would give for this fake.
    var serviceAccountJSON: Data {
        let document: [String: String] = [
            "type": "service_account", "project_id": Self.projectID, "private_key_id": "key-1",
            "private_key": key.pemRepresentation, "client_email": Self.clientEmail, "token_uri": tokenURI,
        ]
        return (try? JSONSerialization.data(withJSONObject: document)) ?? Data()
    }

    var credentials: PushCredentials {
        get throws { .fcm(try FCMCredentials(serviceAccountJSON: serviceAccountJSON)) }
    }

    static func with<T: Sendable>(_ body: @Sendable (FakeFCM) async throws -> T) async throws -> T {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let holder = Mutex<FakeFCM?>(nil)
        let router = Router()
        router.post("token") { request, _ -> Response in
            guard let fake = holder.withLock({ $0 }) else { return json(503, [:]) }
            return try await fake.token(request)
        }
        router.post("v1/projects/:project/messages:send") { request, context -> Response in
            guard let fake = holder.withLock({ $0 }) else { return json(503, [:]) }
            return try await fake.send(request, project: context.parameters.get("project") ?? "")
        }
        let (task, port) = try await LocalTestServer.start(router, label: "fake-fcm")
        defer { task.cancel() }
        let fake = FakeFCM(port: port, key: key)
        holder.withLock { $0 = fake }
        return try await body(fake)
    }

    private func token(_ request: Request) async throws -> Response {
        tokenCalls.withLock { $0 += 1 }
        let body = try await request.body.collect(upTo: 65_536)
        let form = Dictionary(
            (URLComponents(string: "?" + String(buffer: body))?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first })
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"],
            let parsed = try? JWS.parse(assertion), parsed.header["alg"] == "RS256",
            key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: parsed.signature),
                for: SHA256.hash(data: Data(parsed.signingInput.utf8)), padding: .insecurePKCS1v1_5),
            case .object(let claims)? = try? JSONValue.decode(parsed.payload),
            claims["iss"] == .string(Self.clientEmail), claims["aud"] == .string(tokenURI),
            claims["scope"] == .string("https://www.googleapis.com/auth/firebase.messaging"),
            let iat = claims["iat"]?.doubleValue, let exp = claims["exp"]?.doubleValue, exp > iat, exp - iat <= 3600
        else {
            return Self.json(400, ["error": "invalid_grant", "error_description": "Invalid JWT Signature."])
        }
        let value = "ya29.fake-" + UUID().uuidString
        liveAccessTokens.withLock { _ = $0.insert(value) }
        return Self.json(200, ["access_token": value, "expires_in": 3599, "token_type": "Bearer"])
    }

    private func send(_ request: Request, project: String) async throws -> Response {
        sendCalls.withLock { $0 += 1 }
        let delay = latency.withLock { $0 }
        if delay > .zero { try await Task.sleep(for: delay) }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let bearer, liveAccessTokens.withLock({ $0.contains(bearer) }) else {
            return Self.error(Answer(status: 401, errorStatus: "UNAUTHENTICATED", errorCode: nil))
        }
        let body = try await request.body.collect(upTo: 65_536)
        // FCM refuses a message over 4,096 bytes ("Message is too big").
        guard body.readableBytes <= 4_096 else {
            return Self.error(Answer(status: 400, errorStatus: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT"))
        }
        guard project == Self.projectID || project == Self.projectID + ":send",
            case .object(let document)? = try? JSONValue.decode(Data(buffer: body)),
            case .object(let message)? = document["message"], case .string(let token)? = message["token"]
        else {
            return Self.error(Answer(status: 400, errorStatus: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT"))
        }
        if deadTokens.withLock({ $0.contains(token) }) { return Self.error(.unregistered) }
        let scripted = script.withLock { script -> Answer? in
            guard var answers = script[token], !answers.isEmpty else { return nil }
            let first = answers.removeFirst()
            script[token] = answers
            return first
        }
        if let scripted { return Self.error(scripted) }
        let notification = message["notification"]?.objectValue
        let android = message["android"]?.objectValue
        var data: [String: String] = [:]
        for (name, value) in message["data"]?.objectValue ?? [:] {
            guard case .string(let text) = value else {
                return Self.error(Answer(status: 400, errorStatus: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT"))
            }
            data[name] = text
        }
        let entry = Received(
            token: token, title: notification?["title"]?.stringValue, body: notification?["body"]?.stringValue,
            data: data, collapseKey: android?["collapse_key"]?.stringValue,
            androidPriority: android?["priority"]?.stringValue)
        let number = received.withLock { received in
            received.append(entry)
            return received.count
        }
        return Self.json(200, ["name": "projects/\(Self.projectID)/messages/\(number)"])
    }

    /// Google's error model: `{"error": {code, message, status, details: [{@type, errorCode}]}}`.
    private static func error(_ answer: Answer) -> Response {
        var error: [String: Any] = ["code": answer.status, "message": "fake", "status": answer.errorStatus]
        if let code = answer.errorCode {
            error["details"] = [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code]]
        }
        var response = json(answer.status, ["error": error])
        if let retryAfter = answer.retryAfter { response.headers[.retryAfter] = retryAfter }
        return response
    }

    static func json(_ status: Int, _ object: [String: Any]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
