import GatewayCore
import HTTPTypes
import Logging
import NIOCore

/// What the edge middlewares learned about the request in flight. It rides in
/// ``GatewayRequestContext/scope`` through the middlewares and is bound once, as a
/// task-local value, for the OpenAPI handlers (which see only typed inputs).
public struct RequestScope: Sendable {
    /// The request id echoed in `X-Request-Id` and in every log line.
    public var requestID: String
    /// The server's logger, without this request's metadata.
    public var baseLogger: Logger
    /// Logger carrying `request_id` (and `tenant` once resolved). Built when something
    /// logs: setting logger metadata on every request costs a re-render in text logging.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "request_id"] = .string(requestID)
        if let tenant { logger[metadataKey: "tenant"] = .string(tenant.id) }
        return logger
    }
    /// The tenant of a `/t/{tenant}/...` path, resolved from the in-memory snapshot.
    public var tenant: Tenant? {
        get { tenantBox?.value }
        set { tenantBox = newValue.map(Box.init) }
    }
    /// The verified access token of a protected operation (see ``BearerAuthMiddleware``).
    public var principal: AccessTokenClaims? {
        get { principalBox?.value }
        set { principalBox = newValue.map(Box.init) }
    }
    /// The verified sender token of a sender operation (`POST /notifications`).
    public var sender: SenderTokenClaims? {
        get { senderBox?.value }
        set { senderBox = newValue.map(Box.init) }
    }
    /// The request's operation, tenant segment and edge facts (``OperationTable``), found once
    /// by ``GatewayResponder``.
    var route: RouteMatch {
        get { routeBox?.value ?? .unlisted }
        set { routeBox = Box(newValue) }
    }
    /// The scope is copied by every task-local read and binding (several per request);
    /// boxed, the tenant and claims cost one retain per copy instead of one per field.
    private var tenantBox: Box<Tenant>?
    private var principalBox: Box<AccessTokenClaims>?
    private var senderBox: Box<SenderTokenClaims>?
    private var routeBox: Box<RouteMatch>?

    /// An immutable value behind one reference.
    private final class Box<Value: Sendable>: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// The raw `Authorization` header (OAuth endpoints read HTTP Basic client credentials from it).
    public var authorization: String?
    /// The request's header fields exactly as sent. Handlers compare and validate header
    /// values from here: the generated server percent-decodes the header parameters it
    /// hands over, so `%22cfg-1%22` would match `"cfg-1"` and a `%`-escaped value would
    /// pass a length check it fails as sent.
    public var headers: HTTPFields = [:]

    /// The value of header `name` as sent (several fields joined as HTTP joins them).
    static func header(_ name: HTTPField.Name) -> String? {
        current?.headers.value(of: name)
    }

    /// The current request's header fields as sent (empty outside a request).
    static var requestHeaders: HTTPFields {
        current?.headers ?? [:]
    }
    /// The request's connection.
    public var connection: (any Channel)?
    /// The connection as the edge sees it (peer, PROXY protocol client); nil outside a
    /// live server (in-memory router tests).
    var clientConnection: ClientConnection?
    /// The client's address as ``ClientAddressMiddleware`` resolved it (behind a trusted
    /// proxy, the forwarded client; else the peer).
    public var clientIP: IPAddress?
    /// The client's address as text (login throttling per client address).
    public var clientAddress: String? { clientIP?.description }
    /// The request's `Host` (HTTP/1.1 header or HTTP/2 `:authority`), for per-host documents.
    public var host: String?
    /// The authenticated user (token `sub`) of a protected operation.
    public var subject: String? { principal?.subject }

    public init(requestID: String, logger: Logger, connection: (any Channel)? = nil) {
        self.requestID = requestID
        self.baseLogger = logger
        self.connection = connection
    }

    @TaskLocal public static var current: RequestScope?

    /// The resolved tenant; a handler under `/t/{tenant}` reaching here without one is a wiring bug.
    static func requireTenant() throws -> Tenant {
        guard let tenant = current?.tenant else { throw GatewayProblem.internalError() }
        return tenant
    }

    /// The authenticated principal; a protected handler reaching here without one is a wiring bug.
    static func requirePrincipal() throws -> AccessTokenClaims {
        guard let principal = current?.principal else { throw GatewayProblem.internalError() }
        return principal
    }

    static var logger: Logger {
        current?.logger ?? Logger(label: "gateway")
    }
}
