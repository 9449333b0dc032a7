import GatewayCore
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Honours a well-formed incoming `X-Request-Id` (else makes one), puts it in the
/// ``RequestScope`` (and so on log lines) and on the response.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    /// Where new ids come from.
    let ids: RequestIDSequence

    /// `X-Request-Id`.
    static let headerName = HTTPField.Name("X-Request-Id")!

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let requestID = request.headers.value(of: Self.headerName).flatMap(Self.accept) ?? ids.next()
        // The id reaches log lines through `RequestScope.logger` (built only when logging).
        var context = context
        context.scope.requestID = requestID
        context.scope.host = request.head.authority
        context.scope.headers = request.headers
        var response = try await next(request, context)
        response.headers[Self.headerName] = requestID
        return response
    }

    /// Accepts 1–128 characters of `[A-Za-z0-9._:-]`, so ids never inject into logs.
    static func accept(_ candidate: String) -> String? {
        guard (1...128).contains(candidate.utf8.count) else { return nil }
        let allowed = candidate.utf8.allSatisfy { ASCIIByte.isLetterOrDigit($0) || "._:-".utf8.contains($0) }
        return allowed ? candidate : nil
    }
}

/// Request ids of one server: a random 64-bit prefix drawn at start, then a counter — 32
/// hex digits, unique across restarts and replicas without a `getrandom` syscall per request.
final class RequestIDSequence: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        prefix = generator.next()
    }

    func next() -> String {
        Self.hex(prefix, counter.add(1, ordering: .relaxed).newValue)
    }

    /// `high` then `low`, 16 lower-case hex digits each.
    static func hex(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 32) { buffer in
            for index in 0..<32 {
                let word = index < 16 ? high : low
                let nibble = UInt8(truncatingIfNeeded: word >> (UInt64(15 - index % 16) * 4)) & 0xF
                buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            return 32
        }
    }
}
