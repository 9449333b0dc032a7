import Foundation
import Logging

/// Keeps the push outbox bounded: messages (and their deliveries) are deleted a while after
/// they expire, so senders can still read a message's outcome for `keepDays`.
public struct PushRetention: Sendable {
    private let outbox: any PushOutbox
    private let keepDays: Int
    private let batch: Int
    private let interval: Duration
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// - Parameter clock: now, injected for tests.
    public init(
        outbox: any PushOutbox, keepDays: Int = 7, batch: Int = 1_000, interval: Duration = .seconds(3600),
        clock: @escaping @Sendable () -> Date = WallClock.system.now, logger: Logger
    ) {
        self.outbox = outbox
        self.keepDays = max(1, keepDays)
        self.batch = max(1, batch)
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// Deletes in batches until a round deletes less than a full batch; returns how many
    /// messages went.
    @discardableResult
    public func purge() async throws -> Int {
        let cutoff = clock().addingTimeInterval(-Double(keepDays) * 86_400)
        return try await BatchedPurge.run(batch: batch) { try await outbox.purge(expiredBefore: cutoff, limit: $0) }
    }

    /// Purges every `interval` until the task is cancelled; failures are logged, never thrown.
    public func run() async {
        await Periodic.run(every: interval, name: "push retention", logger: logger) {
            let removed = try await purge()
            logger.debug("push retention", metadata: ["removed": "\(removed)", "keepDays": "\(keepDays)"])
        }
    }
}
