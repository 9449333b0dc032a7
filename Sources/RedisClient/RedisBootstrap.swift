import NIOCore
import NIOPosix
import NIOSSL

/// Opens TCP (or TLS) channels to one Redis or Sentinel server with the client's options.
enum RedisBootstrap {
    /// Connects to `configuration.host:port`; `handlers` are added after TLS, when there is TLS.
    static func connect(
        configuration: RedisConfiguration,
        tls: RedisTLSContext?,
        eventLoop: any EventLoop,
        handlers: @escaping @Sendable () -> [any ChannelHandler]
    ) -> EventLoopFuture<any Channel> {
        let host = configuration.host
        let target = RedisEndpoint(host: host, port: configuration.port)
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(try tls.handler(host: host))
                    }
                    try channel.pipeline.syncOperations.addHandlers(handlers())
                }
            }
            .connect(host: host, port: configuration.port)
            .flatMapErrorThrowing { error in
                if let redisError = error as? RedisError { throw redisError }
                throw RedisError.connectionFailed("cannot connect to \(target): \(error)")
            }
    }
}
