import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One request through AsyncHTTPClient with the bytes as sent and received: for checks
/// the generated client would hide (headers as sent, bodies it would refuse to decode).
struct RawAnswer: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: String
}

enum RawHTTP {
    /// `method url` with `headers` and an optional body; never follows redirects.
    static func send(
        _ method: HTTPMethod = .GET, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: TimeAmount = .seconds(10)
    ) async throws -> RawAnswer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 8 << 20)
        return RawAnswer(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }
}

extension GatewayHarness {
    /// A raw GET of `/t/{tenant}{path}` as the tenant's signed-in test user.
    func signedInGET(
        _ path: String, tenant: String, port: Int, headers: [(String, String)] = []
    ) async throws -> RawAnswer {
        let token = try await users.accessToken(tenant: tenant)
        return try await RawHTTP.send(
            .GET, "http://127.0.0.1:\(port)/t/\(tenant)\(path)",
            headers: [("Authorization", "Bearer \(token)")] + headers)
    }
}
