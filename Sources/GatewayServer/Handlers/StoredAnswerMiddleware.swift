import Foundation
import GatewayCore
import HTTPTypes
import OpenAPIRuntime

/// Serves the cached answers of the mini-app read operations (`getMiniApp`,
/// `getMiniAppManifest`, `getMiniAppBundle`) as their stored bytes, so a cache hit is
/// never decoded into the generated types and encoded again.
///
/// It sits inside the generated server: the OpenAPI router has matched the operation and
/// its path parameters; validation and the answer come from the same
/// ``GatewayAPIHandler`` functions the typed handlers use, so both paths answer alike
/// (the typed handlers remain the reference, and serve when this middleware is absent).
struct StoredAnswerMiddleware: ServerMiddleware {
    let handler: GatewayAPIHandler

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let answer: CachedAnswer
        switch operationID {
        case "getMiniAppManifest":
            answer = try await handler.manifestAnswer(
                id: Self.parameter("id", metadata), versionID: Self.parameter("versionId", metadata),
                lang: Self.query("lang", in: request.path)
            )
        case "getMiniApp":
            answer = try await handler.miniAppAnswer(id: Self.parameter("id", metadata))
        case "getMiniAppBundle":
            answer = try await handler.bundleAnswer(id: Self.parameter("id", metadata), versionID: Self.parameter("versionId", metadata))
        default:
            return try await next(request, body, metadata)
        }
        if EntityTag.matches(Self.header(.ifNoneMatch, request), answer.etag) {
            return (HTTPResponse(status: .notModified, headerFields: [.eTag: answer.etag]), nil)
        }
        let headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .eTag: answer.etag]
        return (HTTPResponse(status: .ok, headerFields: headers), HTTPBody(answer.body))
    }

    /// A header value, percent-decoded as the generated code decodes it (its client
    /// percent-encodes string headers).
    static func header(_ name: HTTPField.Name, _ request: HTTPRequest) -> String? {
        guard let raw = request.headerFields[name] else { return nil }
        return raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding ?? raw : raw
    }

    /// A path parameter, percent-decoded as the generated code decodes it.
    static func parameter(_ name: String, _ metadata: ServerRequestMetadata) -> String {
        let raw = metadata.pathParameters[name].map(String.init) ?? ""
        return raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding ?? raw : raw
    }

    /// The first value of query item `name` (form style: `+` is a space), or nil.
    static func query(_ name: String, in path: String?) -> String? {
        guard let path, let mark = path.firstIndex(of: "?") else { return nil }
        for item in path[path.index(after: mark)...].split(separator: "&") {
            guard let equals = item.firstIndex(of: "="), item[..<equals] == name else { continue }
            var value = String(item[item.index(after: equals)...])
            if value.utf8.contains(UInt8(ascii: "+")) { value = value.replacingOccurrences(of: "+", with: " ") }
            return value.utf8.contains(UInt8(ascii: "%")) ? value.removingPercentEncoding ?? value : value
        }
        return nil
    }
}
