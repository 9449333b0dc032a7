import Hummingbird
import Logging
import NIOCore

/// The request context of the gateway: Hummingbird's core context plus the peer address
/// (login throttling counts failures per client address).
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected peer (the proxy's address when behind one).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
