import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import NIOCore

/// Serves the cached answers of the hottest read operations of `OpenAPI/gateway.yaml` — the
/// ones marked `x-gateway-stored-answer` (`getMiniApp`, `getMiniAppManifest`,
/// `getMiniAppBundle`) — as their stored bytes, in one
/// buffer, ahead of the router: a cache hit is never routed through the trie, decoded into
/// the generated types, re-encoded, and streamed through the OpenAPI transport.
///
/// It runs after tenant resolution, bearer verification and rate limiting, so the
/// protections are the same. Validation and the answer come from the same
/// ``GatewayAPIHandler`` functions the generated handlers call; `StoredAnswerParityTests`
/// checks both paths give the same status, headers and bytes, and the contract fuzz runs
/// through this path. Anything it does not recognise goes on to the router.
final class StoredAnswerMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    /// A class: the handler is a large value, and the responder's closures would copy it
    /// (a retain per field) on every request.
    let handler: GatewayAPIHandler

    init(handler: GatewayAPIHandler) {
        self.handler = handler
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let route = context.scope.route
        guard let operation = route.operation, let tenant = context.scope.tenant,
              let read = StoredAnswerRead(route: route, uri: request.uri)
        else { return try await next(request, context) }
        // The metrics label, as the router would have set it.
        context.coreContext.endpointPath.value = operation.template
        let answer = try await handler.storedAnswer(
            read, tenant: tenant,
            for: ReleaseAudience(headers: request.headers, userID: context.scope.principal?.subject))
        if EntityTag.matches(request.headers.value(of: .ifNoneMatch), answer.etag) {
            return Response(status: .notModified, headers: [.eTag: answer.etag])
        }
        return Response(
            status: .ok,
            headers: [.contentType: StoredAnswerFastPath.contentType, .eTag: answer.etag],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        )
    }
}
