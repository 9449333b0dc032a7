import Hummingbird

/// Decides the request's client address once (see ``ClientAddressResolver``) and puts it in
/// the ``RequestScope``: the sign-in throttle, the access log and the per-address request
/// cap read it from there.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let resolver: ClientAddressResolver

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let address = context.scope.clientConnection?.address else { return try await next(request, context) }
        var context = context
        context.scope.clientIP = resolver.resolve(peer: address, headers: request.headers)
        return try await next(request, context)
    }
}
