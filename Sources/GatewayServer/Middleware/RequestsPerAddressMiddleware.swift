import Hummingbird

/// Holds each client address to its requests in flight; over the cap → 429
/// `too_many_requests_in_flight` with `Retry-After`. A direct client has one request in
/// flight per connection (HTTP/1.1), so its connection cap bounds it already; the count is
/// kept only where it adds a bound: clients behind a trusted proxy, or a request cap below
/// the connection cap.
struct RequestsPerAddressMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    /// nil: no cap.
    let inFlight: InFlightPerAddress?
    /// Connections per address (0 = no cap).
    let connectionCap: Int

    init(limits: ConnectionLimits) {
        inFlight = limits.maxRequestsPerAddress > 0 ? InFlightPerAddress(limit: limits.maxRequestsPerAddress) : nil
        connectionCap = limits.maxConnectionsPerAddress
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let client = context.scope.clientIP,
              let inFlight = count(of: client, on: context.scope.clientConnection?.address)
        else { return try await next(request, context) }
        guard inFlight.enter(client) else { throw GatewayProblem.tooManyRequestsInFlight() }
        defer { inFlight.leave(client) }
        return try await next(request, context)
    }

    /// The count `client`'s requests are held to; nil when none adds a bound (no cap, or a
    /// direct client whose connection cap is the tighter one).
    func count(of client: IPAddress, on connection: IPAddress?) -> InFlightPerAddress? {
        guard let inFlight, connectionCap == 0 || inFlight.limit < connectionCap || client != connection else {
            return nil
        }
        return inFlight
    }
}
