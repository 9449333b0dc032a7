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
    /// Like the router's trie, a literal segment wins over a `{parameter}` at the same
    /// position (`storage/all` is not also `storage/{key}`).
    func allowedMethods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let matching = routes.filter { Self.matches($0.segments, segments) }
        let best = matching.map { Self.literals($0.segments) }.max { Self.isMoreSpecific($1, than: $0) }
        var methods = matching.filter { Self.literals($0.segments) == best }.map(\.method)
        if methods.contains(.get) { methods.append(.head) }
        return methods
    }

    /// Per segment: true when literal.
    private static func literals(_ template: [Substring]) -> [Bool] {
        template.map { !($0.hasPrefix("{") && $0.hasSuffix("}")) }
    }

    /// Whether `lhs` has a literal at the first position where the two differ.
    private static func isMoreSpecific(_ lhs: [Bool], than rhs: [Bool]) -> Bool {
        guard let index = lhs.indices.first(where: { $0 < rhs.count && lhs[$0] != rhs[$0] }) else { return false }
        return lhs[index]
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
