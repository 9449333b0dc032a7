import GatewayCore
import Hummingbird
import NIOCore

/// Enforces ``BodyLimits`` before a body is read: a `Content-Length` over the route's
/// limit is answered 413 `payload_too_large` at once; a body without one is counted as it
/// streams in and cut off as soon as it passes the limit. Either way the connection stops
/// reading (input closed), so the rest of an oversized body is never read, let alone
/// buffered, and the connection closes after the answer.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let limits: BodyLimits

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // HTTP/1.1: a request with neither Content-Length nor Transfer-Encoding has no body
        // (RFC 9112 §6.3): nothing to bound, and the hot GETs skip the wrapper.
        let declared = request.headers.value(of: .contentLength)
        guard declared != nil || request.headers.value(of: .transferEncoding) != nil else { return try await next(request, context) }
        let maximum = limits.maximum(method: request.method.rawValue, path: context.scope.path, tenant: context.scope.tenant)
        let connection = context.scope.connection
        if let declared, let length = Int(declared), length > maximum {
            Self.stopReading(connection)
            throw GatewayProblem.payloadTooLarge(maximum: maximum)
        }
        var request = request
        request.body = RequestBody(asyncSequence: LimitedRequestBody(base: request.body, maximum: maximum) { Self.stopReading(connection) })
        return try await next(request, context)
    }

    /// Stops reading the connection: what the client still sends is discarded by the kernel,
    /// and Hummingbird closes the connection once the answer is written.
    static func stopReading(_ connection: (any Channel)?) {
        connection?.close(mode: .input, promise: nil)
    }
}

/// A request body that throws ``GatewayProblem/payloadTooLarge(maximum:)`` once more than
/// `maximum` bytes have arrived.
struct LimitedRequestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let maximum: Int
    let onExceeded: @Sendable () -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let maximum: Int
        let onExceeded: @Sendable () -> Void
        var received = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await base.next() else { return nil }
            received += buffer.readableBytes
            if received > maximum {
                onExceeded()
                throw GatewayProblem.payloadTooLarge(maximum: maximum)
            }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), maximum: maximum, onExceeded: onExceeded)
    }
}
