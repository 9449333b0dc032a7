import GatewayCore
import Hummingbird
import NIOCore

/// Enforces ``BodyLimits`` before a body is read: a `Content-Length` over the route's
/// limit is answered 413 `payload_too_large` at once; a body without one is counted as it
/// streams in and cut off as soon as it passes the limit. Either way the answer is early
/// (before the body's end): ``EarlyAnswerHandler`` has the connection refuse the rest of the
/// body, so it is never buffered, and the client reads the 413 before the connection
/// closes (``LingeringCloseHandler``).
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let limits: BodyLimits

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // HTTP/1.1: a request with neither Content-Length nor Transfer-Encoding has no body
        // (RFC 9112 §6.3): nothing to bound, and the hot GETs skip the wrapper.
        let declared = request.headers.value(of: .contentLength)
        guard declared != nil || request.headers.value(of: .transferEncoding) != nil else {
            return try await next(request, context)
        }
        let maximum = limits.maximum(for: context.scope.route.facts.body, tenant: context.scope.tenant)
        if let declared, let length = Int(declared), length > maximum {
            throw GatewayProblem.payloadTooLarge(maximum: maximum)
        }
        var request = request
        request.body = RequestBody(asyncSequence: LimitedRequestBody(base: request.body, maximum: maximum))
        return try await next(request, context)
    }
}

/// A request body that throws ``GatewayProblem/payloadTooLarge(maximum:)`` once more than
/// `maximum` bytes have arrived.
struct LimitedRequestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let maximum: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let maximum: Int
        var received = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await base.next() else { return nil }
            received += buffer.readableBytes
            if received > maximum {
                throw GatewayProblem.payloadTooLarge(maximum: maximum)
            }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), maximum: maximum)
    }
}
