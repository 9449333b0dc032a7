import HTTPTypes
import OpenAPIRuntime

/// A request with no bytes and no `Content-Type` reaches an operation whose JSON body is
/// optional (approving a sign-in request) as no body: the runtime would otherwise parse zero
/// bytes as JSON and answer 400. That holds whether the client said `Content-Length: 0` or
/// sent no length at all (`curl -X POST`): a body of unknown length is read (within the
/// edge's body limit) to see whether it is empty.
struct OptionalBodyMiddleware: ServerMiddleware {
    /// The operations whose request body is optional JSON.
    static let operations: Set<String> = ["approveSignInRequest"]
    /// The most an optional body of unknown length is read to (the approval's is a few bytes).
    static let maxBytes = 64 * 1024

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard Self.operations.contains(operationID), request.headerFields[.contentType] == nil, let body else {
            return try await next(request, body, metadata)
        }
        switch body.length {
        case .known(0):
            return try await next(request, nil, metadata)
        case .known:
            return try await next(request, body, metadata)
        case .unknown:
            let bytes = try await ArraySlice(collecting: body, upTo: Self.maxBytes)
            return try await next(request, bytes.isEmpty ? nil : HTTPBody(bytes), metadata)
        }
    }
}
