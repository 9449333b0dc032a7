import Hummingbird

/// The gateway's HTTP responder: the edge middlewares, in order, then the router.
///
/// (operation lookup) → request id → client address → (tracing span) → metrics and access log → problem mapping →
/// requests in flight per client address → tenant resolution → body limit →
/// bearer-token protection → rate limits → stored answers of the hot reads →
/// (task-local ``RequestScope``) → router.
///
/// The edge runs ahead of route resolution, so a stored answer is written without walking
/// the route trie, and the chain is statically typed (no existential middleware stack).
/// The router keeps its own problem mapping and header decoding around the generated
/// handlers: Hummingbird's router answers the errors it sees itself, and they must be
/// problem documents too.
///
/// A class, so the closures of the chain capture one reference instead of copying every
/// middleware (and its services) per request.
final class GatewayResponder: HTTPResponder {
    typealias Context = GatewayRequestContext

    let requestIDs: RequestIDMiddleware
    /// nil when tracing is off.
    let tracing: RequestTracingMiddleware?
    let metrics: HTTPMetricsMiddleware
    let problems: ProblemMiddleware
    let clientAddresses: ClientAddressMiddleware
    let requestsPerAddress: RequestsPerAddressMiddleware
    let tenants: TenantResolutionMiddleware
    let bodyLimits: BodyLimitMiddleware
    let bearer: BearerAuthMiddleware
    let rateLimits: RateLimitMiddleware
    /// nil only to compare the generated handlers with the stored-answer path.
    let storedAnswers: StoredAnswerMiddleware?
    let router: RouterResponder<Context>
    /// Which operation each request is (the contract's route facts).
    let operations: OperationTable

    init(
        operations: OperationTable, requestIDs: RequestIDMiddleware, tracing: RequestTracingMiddleware?,
        metrics: HTTPMetricsMiddleware, problems: ProblemMiddleware,
        clientAddresses: ClientAddressMiddleware, requestsPerAddress: RequestsPerAddressMiddleware,
        tenants: TenantResolutionMiddleware, bodyLimits: BodyLimitMiddleware, bearer: BearerAuthMiddleware,
        rateLimits: RateLimitMiddleware,
        storedAnswers: StoredAnswerMiddleware?, router: RouterResponder<Context>
    ) {
        self.operations = operations
        self.requestIDs = requestIDs
        self.tracing = tracing
        self.metrics = metrics
        self.problems = problems
        self.clientAddresses = clientAddresses
        self.requestsPerAddress = requestsPerAddress
        self.tenants = tenants
        self.bodyLimits = bodyLimits
        self.bearer = bearer
        self.rateLimits = rateLimits
        self.storedAnswers = storedAnswers
        self.router = router
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        var context = context
        // Every edge step reads the match; none parses the path again.
        context.scope.route = operations.match(method: request.method, path: request.uri.path)
        return try await requestIDs.handle(request, context: context) { request, context in
            try await clientAddresses.handle(request, context: context) { request, context in
                guard let tracing else { return try await measured(request, context) }
                return try await tracing.handle(request, context: context, next: measured)
            }
        }
    }

    private func measured(_ request: Request, _ context: Context) async throws -> Response {
        try await metrics.handle(request, context: context) { request, context in
            try await problems.handle(request, context: context) { request, context in
                if PathControlCharacters.held(in: request.uri.path) { throw PathControlCharacters.refusal() }
                return try await requestsPerAddress.handle(request, context: context) { request, context in
                    try await tenants.handle(request, context: context) { request, context in
                        try await bodyLimits.handle(request, context: context) { request, context in
                            try await bearer.handle(request, context: context, next: afterAuthentication)
                        }
                    }
                }
            }
        }
    }

    private func afterAuthentication(_ request: Request, _ context: Context) async throws -> Response {
        try await rateLimits.handle(request, context: context) { request, context in
            guard let storedAnswers else { return try await route(request, context) }
            return try await storedAnswers.handle(request, context: context, next: route)
        }
    }

    /// The generated handlers see only typed inputs: they read the scope as a task-local value.
    private func route(_ request: Request, _ context: Context) async throws -> Response {
        try await RequestScope.$current.withValue(context.scope) {
            try await router.respond(to: request, context: context)
        }
    }
}
