import Logging

/// Keeps one replica's ``RevocationMirror`` complete and the durable store tidy.
///
/// - With a feed (Redis): follows it (subscribe, load everything from the durable store,
///   then live announcements); after a break it waits with backoff and follows again.
///   While it is broken the mirror is unsynced and lookups go to the durable store.
/// - Always: polls the durable store for revocations recorded since the last poll, so one
///   whose announcement failed (Redis down at that moment) still reaches this replica's
///   memory within `pollInterval`. Without a feed, the first poll marks the mirror synced.
/// - Hourly: deletes revocations whose tokens have expired.
public struct RevocationSync: Sendable {
    let mirror: RevocationMirror
    let feed: (any RevocationFeed)?
    let durable: any RevocationStore
    let pollInterval: Duration
    let logger: Logger

    public init(
        mirror: RevocationMirror, feed: (any RevocationFeed)?, durable: any RevocationStore,
        pollInterval: Duration = .milliseconds(500), logger: Logger
    ) {
        self.mirror = mirror
        self.feed = feed
        self.durable = durable
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Loads everything once; without a feed this completes the mirror. Call before serving.
    public func start() async throws -> Int64 {
        let now = CachedAnswer.now()
        let (entries, cursor) = try await durable.revocations(after: 0, now: now)
        if feed == nil { mirror.synced(with: entries, now: now) }
        else { for (key, until) in entries { mirror.add(key, until: until, now: now) } }
        return cursor
    }

    /// Runs until cancelled.
    public func run(from cursor: Int64) async {
        await withTaskGroup(of: Void.self) { group in
            if let feed { group.addTask { await follow(feed) } }
            group.addTask { await poll(from: cursor) }
            await group.waitForAll()
        }
    }

    private func follow(_ feed: any RevocationFeed) async {
        var delay = Duration.milliseconds(100)
        let durable = self.durable
        while !Task.isCancelled {
            let started = ContinuousClock.now
            do {
                try await feed.follow(into: mirror) {
                    try await durable.revocations(after: 0, now: CachedAnswer.now()).entries
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "revocation feed broken; asking the database per request until it is back",
                    metadata: ["error": "\(error)"])
            }
            // A feed that ran a while had recovered: start the backoff afresh.
            delay = ContinuousClock.now - started > .seconds(5) ? .milliseconds(100) : delay
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    private func poll(from start: Int64) async {
        var cursor = start
        var lastPurge = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: pollInterval)
            if Task.isCancelled { return }
            let now = CachedAnswer.now()
            do {
                let (entries, next) = try await durable.revocations(after: cursor, now: now)
                for (key, until) in entries { mirror.add(key, until: until, now: now) }
                cursor = next
                if ContinuousClock.now - lastPurge > .seconds(3600) {
                    lastPurge = ContinuousClock.now
                    try await durable.purge(now: now)
                }
            } catch {
                logger.warning("cannot read revocations from the database", metadata: ["error": "\(error)"])
            }
        }
    }
}
