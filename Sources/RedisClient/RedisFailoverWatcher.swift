import Logging

/// Follows Sentinel's `+switch-master` announcements, so a failover is seen at once rather than
/// at the next failed command.
///
/// Subscribes on one sentinel at a time (in the locator's order). After every (re)subscription
/// it asks for the current master, to catch a switch announced while it was not listening.
enum RedisFailoverWatcher {
    /// Runs until cancelled; `switched` is called with the new master whenever it changes.
    static func run(
        pool: RedisConnectionPool,
        locator: RedisMasterLocator,
        logger: Logger,
        switched: @escaping @Sendable (RedisEndpoint) -> Void
    ) async {
        guard let masterName = locator.configuration.sentinel?.masterName else { return }
        var backoff = locator.configuration.reconnectInitialBackoff
        while !Task.isCancelled {
            for sentinel in locator.sentinels where !Task.isCancelled {
                do {
                    let subscription = try await RedisSubscription.open(
                        channels: ["+switch-master"],
                        configuration: locator.sentinelNode(sentinel),
                        tls: locator.tls,
                        eventLoop: pool.eventLoopGroup.next(),
                        register: { _ in !pool.isShutdown }
                    )
                    let previous = locator.knownMaster
                    let current = try await locator.discover()
                    if let previous, previous != current { switched(current) }
                    backoff = locator.configuration.reconnectInitialBackoff
                    for try await message in subscription {
                        guard let master = parse(message.message, masterName: masterName) else { continue }
                        logger.notice(
                            "redis failover: new master",
                            metadata: ["redis.master": "\(master)", "redis.sentinel": "\(sentinel)"])
                        if locator.switched(to: master) { switched(master) }
                    }
                } catch {
                    logger.debug(
                        "redis sentinel subscription lost",
                        metadata: ["redis.sentinel": "\(sentinel)", "error": "\(error)"])
                }
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, locator.configuration.reconnectMaxBackoff)
        }
    }

    /// `<master name> <old ip> <old port> <new ip> <new port>` → the new master, if it is ours.
    static func parse(_ message: [UInt8], masterName: String) -> RedisEndpoint? {
        let parts = String(decoding: message, as: UTF8.self).split(separator: " ")
        guard parts.count == 5, parts[0] == masterName, let port = Int(parts[4]) else { return nil }
        return RedisEndpoint(host: String(parts[3]), port: port)
    }
}
