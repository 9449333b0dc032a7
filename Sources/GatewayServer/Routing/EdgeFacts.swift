/// What the edge applies to a request before its handler, as `OpenAPI/gateway.yaml` declares
/// it for the request's operation (its `security`, its request body's media type and its
/// `x-gateway-*` extensions) or, for a path no operation declares, for the path's prefix
/// (`x-gateway-prefixes`). See ``OperationTable``.
struct EdgeFacts: Sendable, Equatable {
    /// What must come with the request before it reaches its handler.
    enum Security: UInt8, Sendable {
        /// Nothing (`security: []`).
        case anonymous
        /// An access token of the tenant, Bearer or DPoP (``BearerAuthMiddleware``).
        case bearer
        /// The tenant's RAS client key in `apiKey` (and a bearer token when the tenant asks).
        case rasClientKey
        /// A sender token (client credentials) of the tenant (``BearerAuthMiddleware``).
        case sender
    }

    /// The shape of the error bodies.
    enum ErrorDialect: UInt8, Sendable {
        /// RFC 9457 problem documents (``ProblemResponse``).
        case problem
        /// RFC 6749 §5.2 JSON (``OAuthErrorResponse``).
        case oauth
        /// What both Rakuten MiniApp SDKs read (``RASErrorResponse``).
        case ras
    }

    /// Which of ``BodyLimits`` bounds the request body.
    enum BodyKind: UInt8, Sendable {
        case json, form, analytics, storage, contacts
    }

    var security: Security
    var errors: ErrorDialect
    var body: BodyKind

    /// The facts of a path outside every declared prefix.
    static let unlisted = EdgeFacts(security: .anonymous, errors: .problem, body: .json)
}
