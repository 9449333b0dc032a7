import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import NIOCore

/// Answers every request of the fake platform (a middleware, so no route table needed).
struct FakePlatformResponder: RouterMiddleware {
    typealias Context = BasicRequestContext
    let fake: @Sendable () -> FakePlatform?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let fake = fake() else { return Self.json(503, #"{"code":503,"message":"starting"}"#) }
        let path = request.uri.path
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let fault = fake.state.withLock { state -> FakePlatform.Fault? in
            state.requests.append(.init(path: path, query: query, headers: headers))
            guard let fault = state.fault else { return nil }
            if let count = state.faultCount {
                if count <= 1 { state.fault = nil; state.faultCount = nil } else { state.faultCount = count - 1 }
            }
            return fault
        }
        switch fault {
        case .status(let status, let retryAfter):
            var response = Self.json(status, #"{"code":\#(status),"message":"injected"}"#)
            if let retryAfter { response.headers[HTTPField.Name("Retry-After")!] = retryAfter }
            return response
        case .malformed:
            return Self.json(200, #"{"manifest": [unterminated"#)
        case .delay(let duration):
            try await Task.sleep(for: duration)
        case .reset:
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: #"{"partial":"#))
                throw ConnectionDropped()
            })
        case nil:
            break
        }
        if path.hasPrefix("/files/"), let bytes = fake.state.withLock({ $0.files[path] }) {
            return Response(
                status: .ok, headers: [.contentType: "application/zip"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        guard headers["apikey"] == "ras-" + fake.subscriptionKey else {
            return Self.json(401, #"{"error":"invalid_client","error_description":"bad apiKey"}"#)
        }
        if request.method == .post {
            let body = try await request.body.collect(upTo: 1 << 20)
            return recordTransaction(fake, path: path, body: Data(buffer: body))
        }
        return route(fake, path: path, query: query)
    }

    /// `POST /host/{P}/miniapp/{id}/transaction`: a token per transaction, its state as sent.
    private func recordTransaction(_ fake: FakePlatform, path: String, body: Data) -> Response {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 5, parts[0] == "host", parts[1] == fake.projectID, parts[2] == "miniapp",
            parts[4] == "transaction",
            fake.state.withLock({ $0.purchaseItems[parts[3]] }) != nil,
            case .object(let sent)? = try? JSONValue.decode(body), let product = sent["productId"]?.stringValue
        else { return Self.notFound() }
        return fake.state.withLock { state in
            state.transactionBodies.append(.object(sent))
            let token = "tx-\(state.transactions.count + 1)"
            let answer: JSONValue = .object([
                "productId": .string(product), "transactionToken": .string(token),
                "transactionState": .string(sent["transactionState"]?.stringValue ?? "PENDING"),
            ])
            state.transactions[token] = answer
            return Self.encode(answer)
        }
    }

    private func route(_ fake: FakePlatform, path: String, query: [String: String]) -> Response {
        let parts = path.split(separator: "/").map(String.init)
        let state = fake.state.withLock { $0 }
        let p = fake.projectID
        switch parts {
        case ["host", p, "miniapps"], ["host", p, "miniapps", "preview"]:
            if let id = query["miniAppId"] {
                return Self.encode(state.infos[id] ?? state.apps.filter { $0.id == id })
            }
            return Self.encode(state.apps)
        case let x where x.count >= 7 && x[0] == "host" && x[1] == p && x[2] == "miniapp" && x[4] == "version":
            let key = x[3] + "/" + x[5]
            switch x.last {
            case "manifest"?:
                guard let manifest = state.fileManifests[key] else { return Self.notFound() }
                var response = Self.json(
                    200,
                    String(
                        decoding: try! JSONEncoder().encode(
                            [
                                "manifest": .array(manifest.files.map(JSONValue.string)),
                                "publicKeyId": manifest.publicKeyID.map(JSONValue.string) ?? .null,
                            ] as [String: JSONValue]), as: UTF8.self))
                if let signature = manifest.signature { response.headers[HTTPField.Name("Signature")!] = signature }
                return response
            case "metadata"?:
                if let raw = state.rawMetadata[key + "/" + (query["lang"] ?? "")] {
                    return Self.json(200, #"{"bundleManifest":\#(raw)}"#)
                }
                guard let metadata = state.metadata[key + "/" + (query["lang"] ?? "")] ?? state.metadata[key + "/"]
                else { return Self.notFound() }
                return Self.encode(["bundleManifest": metadata])
            default:
                return Self.notFound()
            }
        case let x where x.count == 5 && x[0] == "host" && x[1] == p && x[2] == "miniapp" && x[4] == "purchase-items":
            guard let items = state.purchaseItems[x[3]] else { return Self.notFound() }
            return Self.encode(items)
        case let x where x.count == 6 && x[0] == "host" && x[1] == p && x[2] == "miniapp" && x[4] == "transaction":
            guard let transaction = state.transactions[x[5]] else { return Self.notFound() }
            return Self.encode(transaction)
        case let x where x.count == 4 && x[0] == "host" && x[1] == p && x[2] == "preview-codes":
            guard let preview = state.previews[x[3]] else { return Self.notFound() }
            return Self.encode(preview)
        case let x where x.count == 2 && x[0] == "keys":
            guard let key = state.keys[x[1]] else { return Self.notFound() }
            return Self.encode(key)
        default:
            return Self.notFound()
        }
    }

    static func notFound() -> Response {
        json(404, #"{"code":404,"message":"Not found"}"#)
    }

    static func encode<T: Encodable>(_ value: T) -> Response {
        json(200, String(decoding: try! JSONEncoder().encode(value), as: UTF8.self))
    }

    static func json(_ status: Int, _ body: String) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

/// Thrown by the fake's body writer: the server closes the connection mid-answer.
struct ConnectionDropped: Error {}
