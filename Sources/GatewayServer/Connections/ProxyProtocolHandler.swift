import NIOCore

/// Reads the PROXY protocol header (v1 or v2) a trusted L4 load balancer sends first, and
/// takes the client it names as the connection's client (counted against that client's
/// connection cap). Installed only for peers that are trusted proxies when
/// `--proxy-protocol on`; from others such bytes reach the HTTP parser, which refuses them.
/// Without a header, or with one that breaks the spec but can be skipped, the peer stays
/// the client (counted); a header that cannot be framed closes the connection.
final class ProxyProtocolHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// What happened to a connection's header (metrics).
    enum Outcome: String, Sendable, CaseIterable {
        case accepted
        case absent
        case invalid
    }

    private let connection: ClientConnection
    /// Counts the connection against the named client; false: close it (over its cap).
    private let readmit: @Sendable (ClientConnection, IPAddress) -> Bool
    private let onOutcome: @Sendable (Outcome) -> Void
    private var buffered: ByteBuffer?

    init(
        connection: ClientConnection, readmit: @escaping @Sendable (ClientConnection, IPAddress) -> Bool,
        onOutcome: @escaping @Sendable (Outcome) -> Void
    ) {
        self.connection = connection
        self.readmit = readmit
        self.onOutcome = onOutcome
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if var buffered {
            buffered.writeBuffer(&incoming)
            incoming = buffered
        }
        let bytes = Array(incoming.readableBytesView.prefix(16 + ProxyProtocolHeader.v2MaximumBlock))
        switch ProxyProtocolHeader.parse(bytes) {
        case .needMore:
            buffered = incoming
        case .absent:
            onOutcome(.absent)
            pass(incoming, context)
        case .header(let length, let source):
            incoming.moveReaderIndex(forwardBy: length)
            onOutcome(.accepted)
            if let source {
                connection.setProxied(source)
                guard readmit(connection, source) else {
                    context.close(promise: nil)
                    return
                }
            }
            pass(incoming, context)
        case .invalid(let length?):
            incoming.moveReaderIndex(forwardBy: length)
            onOutcome(.invalid)
            pass(incoming, context)
        case .invalid(nil):
            onOutcome(.invalid)
            context.close(promise: nil)
        }
    }

    /// Hands the HTTP bytes on and leaves the pipeline.
    private func pass(_ rest: ByteBuffer, _ context: ChannelHandlerContext) {
        buffered = nil
        if rest.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(rest)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
