import Hummingbird
import Logging
import NIOCore

/// The request context of the gateway: Hummingbird's core context, the connection (for the
/// peer address: login throttling counts failures per client address) and the
/// ``RequestScope`` the edge middlewares fill in as the request passes them.
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// What the edge middlewares learned (request id, tenant, verified token, ...).
    public var scope: RequestScope
    /// The connected peer (the proxy's address when behind one; the client's is
    /// ``RequestScope/clientIP``).
    public var remoteAddress: SocketAddress? { scope.connection?.remoteAddress }

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.scope = RequestScope(requestID: "", logger: source.logger, connection: source.channel)
        scope.clientConnection = ClientConnection.current
    }
}
