import NIOCore

/// What every client connection of one server shares: its limits, the admission table,
/// who is a trusted proxy, whether they speak the PROXY protocol, and the metrics.
struct ConnectionGuard: Sendable {
    let limits: ConnectionLimits
    let admission: ConnectionAdmission
    let resolver: ClientAddressResolver
    let proxyProtocol: Bool
    let metrics: GatewayMetrics?

    init(
        limits: ConnectionLimits, proxies: ProxySettings, metrics: GatewayMetrics?,
        descriptorLimit: Int = ConnectionLimits.descriptorLimit()
    ) {
        self.limits = limits
        self.proxyProtocol = proxies.proxyProtocol
        self.metrics = metrics
        let policy = ConnectionAdmission.Policy(
            maxConnections: limits.effectiveMaxConnections(descriptorLimit: descriptorLimit),
            maxPerAddress: limits.maxConnectionsPerAddress)
        admission = ConnectionAdmission(
            policy: policy,
            events: .init(
                refused: { metrics?.recordConnectionRefused($0) },
                shed: { metrics?.recordConnectionShed($0) }))
        resolver = ClientAddressResolver(trusted: proxies.trustedProxies) { header, reason in
            metrics?.recordClientAddressFallback(source: header, reason: reason.rawValue)
        }
        if let metrics { metrics.observe(admission) }
    }

    /// The edge's view of a newly accepted connection.
    func connection(for channel: any Channel) -> ClientConnection {
        let peer = channel.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        return ClientConnection(channel: channel, peer: peer, isTrustedPeer: resolver.trusts(peer))
    }

    /// The handlers ahead of Hummingbird's codec, socket side first.
    func handlers(for connection: ClientConnection) -> [any ChannelHandler] {
        let metrics = metrics
        let admission = admission
        var handlers: [any ChannelHandler] = [
            ConnectionDeadlineHandler(limits: limits, connection: connection, isOverloaded: { admission.isOverloaded })
            { phase in
                metrics?.recordConnectionTimeout(phase)
            },
        ]
        if proxyProtocol, connection.isTrustedPeer {
            handlers.append(
                ProxyProtocolHandler(connection: connection, readmit: { admission.readmit($0, as: $1) == nil }) {
                    outcome in
                    metrics?.recordProxyProtocol(outcome)
                })
        }
        handlers.append(LingeringCloseHandler(maxBytes: limits.lingerBytes, maxTime: limits.lingerTime))
        return handlers
    }
}
