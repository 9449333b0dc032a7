import Foundation
import Logging

/// Keeps inboxes bounded in time: messages are deleted once they expire (the retention
/// operators set, default 30 days); reads never answer an expired message meanwhile.
public struct InboxRetention: Sendable {
    private let store: any MessagingStore
    private let batch: Int
    private let interval: Duration
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// - Parameter clock: now, injected for tests.
    public init(
        store: any MessagingStore, batch: Int = 1_000, interval: Duration = .seconds(3600),
        clock: @escaping @Sendable () -> Date = WallClock.system.now, logger: Logger
    ) {
        self.store = store
        self.batch = max(1, batch)
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// Deletes expired messages in batches; returns how many went.
    @discardableResult
    public func purge() async throws -> Int {
        let now = clock()
        return try await BatchedPurge.run(batch: batch) { try await store.purgeMessages(expiredBefore: now, limit: $0) }
    }

    /// Purges every `interval` until the task is cancelled; failures are logged, never thrown.
    public func run() async {
        await Periodic.run(every: interval, name: "inbox retention", logger: logger) {
            let removed = try await purge()
            logger.debug("inbox retention", metadata: ["removed": "\(removed)"])
        }
    }
}
