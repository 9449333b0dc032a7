import HTTPTypes
import Hummingbird
import Tracing

/// One server span per request, continuing the caller's W3C trace context (`traceparent`,
/// `tracestate`). The span is the task's current context while the request runs, so the
/// upstream HTTP client (given the same tracer) sends it on as the parent of its calls.
///
/// The tracer is injected (no global instrumentation system): with tracing off the gateway
/// has no tracer and this middleware is not in the chain at all.
struct RequestTracingMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let tracer: any Tracer

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        return try await tracer.withSpan(request.method.rawValue, context: parent, ofKind: .server) { span in
            span.attributes["http.request.method"] = request.method.rawValue
            span.attributes["url.path"] = request.uri.path
            span.attributes["gateway.request_id"] = context.scope.requestID
            if let tenant = context.scope.route.tenant { span.attributes["gateway.tenant"] = String(tenant) }
            do {
                let response = try await next(request, context)
                Self.finish(span, status: Int(response.status.code), context: context, method: request.method.rawValue)
                return response
            } catch {
                let status = (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 500
                Self.finish(span, status: status, context: context, method: request.method.rawValue)
                throw error
            }
        }
    }

    private static func finish(_ span: any Span, status: Int, context: Context, method: String) {
        span.attributes["http.response.status_code"] = status
        if let route = context.endpointPath { span.operationName = "\(method) \(route)" }
        if status >= 500 { span.setStatus(.init(code: .error)) }
    }
}

/// Reads trace context fields from request headers.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
