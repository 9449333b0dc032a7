import HTTPTypes
import OpenAPIRuntime

/// A request with no bytes and no `Content-Type` reaches an operation whose JSON body is
/// optional (approving a sign-in request) as no body: the runtime would otherwise parse zero
/// bytes as JSON and answer 400.
struct OptionalBodyMiddleware: ServerMiddleware {
    /// The operations whose request body is optional JSON.
    static let operations: Set<String> = ["approveSignInRequest"]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard Self.operations.contains(operationID), request.headerFields[.contentType] == nil,
            body == nil || body?.length == .known(0)
        else { return try await next(request, body, metadata) }
        return try await next(request, nil, metadata)
    }
}
