import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One GET against an upstream with AsyncHTTPClient, bounded by a deadline, mapped to
/// ``UpstreamError``s. Shared by the HTTP upstream clients.
struct UpstreamHTTP: Sendable {
    /// What came back from a 2xx.
    struct Reply: Sendable {
        let body: [UInt8]
        let headers: HTTPHeaders
    }

    let client: HTTPClient

    func get(
        _ url: String, headers: [(String, String)], maxBytes: Int, deadline: ContinuousClock.Instant
    ) async throws -> Reply {
        try await send(.GET, url, headers: headers, body: nil, maxBytes: maxBytes, deadline: deadline)
    }

    /// One POST of an `application/x-www-form-urlencoded` body (token and introspection endpoints).
    func post(
        _ url: String, form: [(String, String)], headers: [(String, String)], maxBytes: Int,
        deadline: ContinuousClock.Instant
    ) async throws -> Reply {
        let body = form.map { "\(AuthorizationServer.formEncode($0.0))=\(AuthorizationServer.formEncode($0.1))" }
            .joined(separator: "&")
        return try await send(
            .POST, url, headers: headers + [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(body.utf8),
            maxBytes: maxBytes, deadline: deadline)
    }

    /// One POST of a JSON body.
    func postJSON(
        _ url: String, body: [UInt8], headers: [(String, String)], maxBytes: Int, deadline: ContinuousClock.Instant
    ) async throws -> Reply {
        try await send(
            .POST, url, headers: headers + [("Content-Type", "application/json")], body: body, maxBytes: maxBytes,
            deadline: deadline)
    }

    private func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)], body: [UInt8]?, maxBytes: Int,
                      deadline: ContinuousClock.Instant) async throws -> Reply {
        let (status, reply) = try await exchange(
            method, url, headers: headers, body: body, maxBytes: maxBytes, deadline: deadline)
        switch status {
        case 200..<300: return reply
        case 404: throw UpstreamError.notFound
        case 429: throw UpstreamError.rateLimited(retryAfter: reply.headers.first(name: "Retry-After"))
        case 400..<500: throw UpstreamError.rejected(status: status)
        default: throw UpstreamError.serverError(status: status)
        }
    }

    /// One request and its answer, whatever its status (push providers read their error
    /// bodies); only the transport fails: ``UpstreamError/timeout``, ``UpstreamError/connection(_:)``,
    /// or ``UpstreamError/malformed(_:)`` for a body over `maxBytes`.
    func exchange(_ method: HTTPMethod, _ url: String, headers: [(String, String)], body: [UInt8]?, maxBytes: Int,
                  deadline: ContinuousClock.Instant) async throws -> (status: Int, reply: Reply) {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { throw UpstreamError.timeout }
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body { request.body = .bytes(body) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let nioDeadline = NIODeadline.now() + .nanoseconds(Self.nanoseconds(remaining))
        do {
            let response = try await client.execute(request, deadline: nioDeadline)
            let buffer = try await response.body.collect(upTo: maxBytes)
            return (Int(response.status.code), Reply(body: Array(buffer.readableBytesView), headers: response.headers))
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                throw UpstreamError.timeout
            case .cancelled where ContinuousClock.now >= deadline:
                throw UpstreamError.timeout
            default:
                throw UpstreamError.connection(String(describing: error))
            }
        } catch is NIOTooManyBytesError {
            throw UpstreamError.malformed("body larger than \(maxBytes) bytes")
        } catch {
            if ContinuousClock.now >= deadline { throw UpstreamError.timeout }
            throw UpstreamError.connection(String(describing: type(of: error)))
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Decodes JSON or throws ``UpstreamError/malformed(_:)`` (never crashes on bad input).
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch {
            throw UpstreamError.malformed("\(T.self): \(error)")
        }
    }
}
