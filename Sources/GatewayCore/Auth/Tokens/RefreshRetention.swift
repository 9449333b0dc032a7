import Foundation
import Logging

/// Keeps durable refresh state bounded: every sign-in adds a family, and every refresh
/// records its access token (a family drops its own expired records only when it refreshes
/// again). Records of expired access tokens go; a family goes when it
/// can never be used again (past its absolute expiry, or revoked) and its last access token
/// has expired, so a logout can still revoke every live token. What is left is at most the
/// families of the last `refreshAbsoluteLifetime` (30 days by default) and the live access
/// tokens.
public struct RefreshRetention: Sendable {
    private let store: any RefreshTokenStore
    private let batch: Int
    private let interval: Duration
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// - Parameters:
    ///   - batch: rows deleted per statement (each one short transaction).
    ///   - clock: now, injected for tests.
    public init(store: any RefreshTokenStore, batch: Int = 5_000, interval: Duration = .seconds(3600),
                clock: @escaping @Sendable () -> Date = WallClock.system.now, logger: Logger) {
        self.store = store
        self.batch = max(1, batch)
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// Purges in batches until a round deletes less than a full batch; returns the totals.
    @discardableResult
    public func purge() async throws -> RefreshPurge {
        var total = RefreshPurge(families: 0, accessTokens: 0)
        while !Task.isCancelled {
            let round = try await store.purgeRefreshState(now: clock(), limit: batch)
            total.families += round.families
            total.accessTokens += round.accessTokens
            if round.families < batch && round.accessTokens < batch { break }
        }
        return total
    }

    /// Purges every `interval` until the task is cancelled; failures are logged, never thrown.
    public func run() async {
        await Periodic.run(every: interval, name: "refresh retention", logger: logger) {
            let removed = try await purge()
            if removed.families + removed.accessTokens > 0 {
                logger.info(
                    "refresh retention",
                    metadata: ["families": "\(removed.families)", "access_tokens": "\(removed.accessTokens)"])
            }
        }
    }
}
