import HTTPTypes
import Hummingbird
import Logging

/// `X-Request-Id`, built once (a generic type cannot hold a stored static).
private let requestIDHeader = HTTPField.Name("X-Request-Id")!

/// Honours a well-formed incoming `X-Request-Id` (else makes one), puts it on the logger
/// and the response, and opens the ``RequestScope`` for the rest of the chain.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headerName: HTTPField.Name { requestIDHeader }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let requestID = request.headers[Self.headerName].flatMap(Self.accept) ?? Self.generate()
        // The id reaches log lines through `RequestScope.logger` (built only when logging).
        var scope = RequestScope(requestID: requestID, logger: context.logger, tenant: nil)
        scope.host = request.head.authority
        var response = try await RequestScope.$current.withValue(scope) {
            try await next(request, context)
        }
        response.headers[Self.headerName] = requestID
        return response
    }

    /// Accepts 1–128 characters of `[A-Za-z0-9._:-]`, so ids never inject into logs.
    static func accept(_ candidate: String) -> String? {
        guard (1...128).contains(candidate.utf8.count) else { return nil }
        let allowed = candidate.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
        return allowed ? candidate : nil
    }

    /// 32 lower-case hex digits of randomness.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = (generator.next() as UInt64, generator.next() as UInt64)
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 32) { buffer in
            for index in 0..<32 {
                let word = index < 16 ? words.0 : words.1
                buffer[index] = digits[Int(truncatingIfNeeded: word >> (UInt64(15 - index % 16) * 4)) & 0xF]
            }
            return 32
        }
    }
}
