import HTTPTypes
import OpenAPIRuntime

/// The (method, path template) pairs the OpenAPI handler registered, so a path that
/// exists under other methods answers 405 with `Allow` instead of 404.
struct RouteTable: Sendable {
    private struct Route: Sendable {
        let method: HTTPRequest.Method
        let segments: [Substring]
    }

    private var routes: [Route] = []

    mutating func add(method: HTTPRequest.Method, template: String) {
        routes.append(Route(method: method, segments: template.split(separator: "/", omittingEmptySubsequences: false)))
    }

    /// Methods registered for templates matching `path`; empty when no template matches.
    func allowedMethods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var methods = routes.filter { Self.matches($0.segments, segments) }.map(\.method)
        if methods.contains(.get) { methods.append(.head) }
        return methods
    }

    private static func matches(_ template: [Substring], _ path: [Substring]) -> Bool {
        guard template.count == path.count else { return false }
        return zip(template, path).allSatisfy { pattern, segment in
            (pattern.hasPrefix("{") && pattern.hasSuffix("}") && !segment.isEmpty) || pattern == segment
        }
    }
}

/// A `ServerTransport` that records every registration into a ``RouteTable`` and
/// forwards it to the real transport (the Hummingbird router).
struct RecordingTransport<Base: ServerTransport>: ServerTransport {
    let base: Base
    let record: (HTTPRequest.Method, String) -> Void

    func register(
        _ handler: @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
        method: HTTPRequest.Method,
        path: String
    ) throws {
        record(method, path)
        try base.register(handler, method: method, path: path)
    }
}
