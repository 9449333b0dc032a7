import Foundation
import HTTPTypes
import Hummingbird

/// swift-openapi-runtime percent-encodes string header values it serialises (so a
/// `Location` of `https://app/cb?code=x` goes out as `https%3A%2F%2Fapp...`, which no
/// browser follows). This restores the raw value of the contract's response headers that
/// carry URLs, quotes or separators. Values are produced by the gateway itself, never
/// echoed from the request unvalidated.
/// Generic over the context: the public and the admin listeners both use it.
struct HeaderDecodingMiddleware<Context: RequestContext>: RouterMiddleware {
    static var names: [HTTPField.Name] {
        [.location, .contentSecurityPolicy, .eTag, .cacheControl, HTTPField.Name("Pragma")!, .setCookie]
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        for name in Self.names {
            guard let value = response.headers[name], value.utf8.contains(UInt8(ascii: "%")),
                let decoded = value.removingPercentEncoding
            else { continue }
            response.headers[name] = decoded
        }
        return response
    }
}
