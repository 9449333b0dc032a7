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
        guard let operation = route.operation, let kind = operation.storedAnswer, let tenant = context.scope.tenant,
              let id = route.parameter("id").map(Self.decoded) else {
            return try await next(request, context)
        }
        // The metrics label, as the router would have set it.
        context.coreContext.endpointPath.value = operation.template
        let answer: CachedAnswer
        switch kind {
        case .miniApp:
            answer = try await handler.miniAppAnswer(
                id: id, tenant: tenant,
                for: ReleaseAudience(headers: request.headers, userID: context.scope.principal?.subject))
        case .manifest:
            guard let version = route.parameter("versionId") else { return try await next(request, context) }
            answer = try await handler.manifestAnswer(
                id: id, versionID: Self.decoded(version), lang: Self.query("lang", request), tenant: tenant)
        case .bundle:
            guard let version = route.parameter("versionId") else { return try await next(request, context) }
            answer = try await handler.bundleAnswer(id: id, versionID: Self.decoded(version), tenant: tenant)
        }
        if EntityTag.matches(request.headers.value(of: .ifNoneMatch), answer.etag) {
            return Response(status: .notModified, headers: [.eTag: answer.etag])
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .eTag: answer.etag],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        )
    }

    /// A path segment or header value, percent-decoded as the generated code decodes them
    /// (its client percent-encodes string headers).
    static func decoded(_ segment: some StringProtocol) -> String {
        let raw = String(segment)
        return raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding ?? raw : raw
    }

    /// The (percent-decoded) value of query item `name`, or nil. Any value that is not a
    /// language tag is refused by validation, however it is spelled.
    static func query(_ name: String, _ request: Request) -> String? {
        // Without a query, skip the (generic, unspecialised) parameter-map lookup.
        guard request.uri.query != nil else { return nil }
        return request.uri.queryParameters[name[...]].map(String.init)
    }
}
