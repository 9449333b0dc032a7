import Foundation
import Logging

/// A retention loop that deletes in batches: each round removes at most `batch` rows (one
/// short transaction), rounds go on until one removes less than a full batch, and the loop
/// purges every `interval` until cancelled, logging failures (never throwing). The push
/// outbox and the inbox use it; each says what a round deletes.
public struct BatchedRetention: Sendable {
    /// The loop's name in logs.
    public let name: String
    private let batch: Int
    private let interval: Duration
    private let logger: Logger
    private let round: @Sendable (_ limit: Int) async throws -> Int

    /// - Parameter round: deletes at most `limit` rows; returns how many went.
    public init(
        name: String, batch: Int, interval: Duration, logger: Logger,
        round: @escaping @Sendable (_ limit: Int) async throws -> Int
    ) {
        self.name = name
        self.batch = max(1, batch)
        self.interval = interval
        self.logger = logger
        self.round = round
    }

    /// Deletes in rounds until one removes less than a full batch; returns how many went.
    @discardableResult
    public func purge() async throws -> Int {
        var total = 0
        while !Task.isCancelled {
            let removed = try await round(batch)
            total += removed
            if removed < batch { break }
        }
        return total
    }

    /// Purges every `interval` until the task is cancelled.
    public func run() async {
        await Periodic.run(every: interval, name: name, logger: logger) {
            let removed = try await purge()
            logger.debug("\(name)", metadata: ["removed": "\(removed)"])
        }
    }
}

extension BatchedRetention {
    /// The push outbox: messages (and their deliveries) go `keepDays` after they expire, so
    /// senders can still read a message's outcome meanwhile.
    public static func pushOutbox(
        _ outbox: any PushOutbox, keepDays: Int = 7, batch: Int = 1_000, interval: Duration = .seconds(3600),
        clock: @escaping @Sendable () -> Date = WallClock.system.now, logger: Logger
    ) -> BatchedRetention {
        BatchedRetention(name: "push retention", batch: batch, interval: interval, logger: logger) { limit in
            try await outbox.purge(expiredBefore: clock().addingTimeInterval(-Double(max(1, keepDays)) * 86_400), limit: limit)
        }
    }

    /// The courier outbox: messages that ended (sent, failed, expired) go `keepDays` after they
    /// were queued, so operators can read what became of them meanwhile.
    public static func courierOutbox(
        _ outbox: any CourierOutbox, keepDays: Int = 7, batch: Int = 1_000, interval: Duration = .seconds(3600),
        clock: @escaping @Sendable () -> Date = WallClock.system.now, logger: Logger
    ) -> BatchedRetention {
        BatchedRetention(name: "courier retention", batch: batch, interval: interval, logger: logger) { limit in
            try await outbox.purge(createdBefore: clock().addingTimeInterval(-Double(max(1, keepDays)) * 86_400), limit: limit)
        }
    }

    /// Inboxes: messages go once they expire (the retention operators set, default 30 days);
    /// reads never answer an expired message meanwhile. Idempotency records of sends go after
    /// their day (``MessageSendRecord/lifetime``).
    public static func inbox(
        _ store: any MessagingStore, batch: Int = 1_000, interval: Duration = .seconds(3600),
        clock: @escaping @Sendable () -> Date = WallClock.system.now, logger: Logger
    ) -> BatchedRetention {
        BatchedRetention(name: "inbox retention", batch: batch, interval: interval, logger: logger) { limit in
            let now = clock()
            let messages = try await store.purgeMessages(expiredBefore: now, limit: limit)
            let records = try await store.purgeSendRecords(
                before: now.addingTimeInterval(-MessageSendRecord.lifetime), limit: limit)
            return max(messages, records)
        }
    }
}
