import Foundation
import GatewayAPI
import OpenAPIAsyncHTTPClient
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// The generated Swift client percent-encodes string header values it sends (so
/// `If-None-Match: "cfg-1"` leaves as `%22cfg-1%22`); the gateway compares header values
/// exactly as sent, as browsers and other clients send them. This middleware restores the
/// raw values of the request headers the contract declares.
struct RawHeaderValuesMiddleware: ClientMiddleware {
    static let names: [HTTPField.Name] = [.ifNoneMatch, .acceptLanguage]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in Self.names {
            guard let value = request.headerFields[name], value.contains("%"), let raw = value.removingPercentEncoding
            else { continue }
            request.headerFields[name] = raw
        }
        return try await next(request, body, baseURL)
    }
}

/// A browser's cookie jar for the generated client: keeps what `Set-Cookie` sets (name and
/// value; attributes ignored) and sends it back as `Cookie`.
final class CookieJar: ClientMiddleware, Sendable {
    private let cookies = Mutex<[String: String]>([:])

    var all: [String: String] { cookies.withLock { $0 } }

    func set(_ name: String, _ value: String) {
        cookies.withLock { $0[name] = value }
    }

    func clear() {
        cookies.withLock { $0 = [:] }
    }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        let header = all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        if !header.isEmpty { request.headerFields[.cookie] = header }
        let (response, responseBody) = try await next(request, body, baseURL)
        for field in response.headerFields where field.name == .setCookie {
            let pair = field.value.split(separator: ";", maxSplits: 1)[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            set(String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
        }
        return (response, responseBody)
    }
}

extension Client {
    /// The generated client as a browser: no redirects followed, cookies kept in `jar`.
    static func browser(port: Int, jar: CookieJar) -> Client {
        Client(
            serverURL: URL(string: "http://127.0.0.1:\(port)")!,
            transport: AsyncHTTPClientTransport(configuration: .init(client: TestHTTP.noRedirects)),
            middlewares: [jar])
    }
}
