import Foundation
import Logging

/// Prunes the audit trail by age (issue 48, `GATEWAY_AUDIT_RETENTION_DAYS`,
/// `gatewayctl audit prune`). For each chain it first verifies the records it is about to
/// remove, then saves a signed ``AuditCheckpoint`` after the last of them, then deletes them
/// in batches: the chain still verifies from the checkpoint, and a broken chain is never
/// pruned (the evidence stays). A chain's newest record always stays, for the next append.
/// Replicas pruning together agree: a checkpoint only ever moves forward.
public struct AuditRetention: Sendable {
    /// What one round did.
    public struct Report: Sendable, Equatable {
        /// Records removed, over every chain.
        public var removed = 0
        /// Chains whose checkpoint moved in this round.
        public var checkpointed: [String] = []
        /// Chains left alone because a record to be pruned does not hold.
        public var refused: [AuditVerifier.Verification] = []
    }

    private let trail: any AuditTrail
    private let signer: AuditCheckpointSigner
    private let keepDays: Int
    private let batch: Int
    private let interval: Duration
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// - Parameters:
    ///   - keepDays: records younger than this many days stay (at least 1).
    ///   - batch: records deleted per statement.
    public init(
        trail: any AuditTrail, signer: AuditCheckpointSigner, keepDays: Int, batch: Int = 1_000,
        interval: Duration = .seconds(3_600), clock: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.trail = trail
        self.signer = signer
        self.keepDays = max(1, keepDays)
        self.batch = max(1, batch)
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// One round over every chain; `progress` gets each chain and the records removed from it.
    public func prune(progress: (String, Int) -> Void = { _, _ in }) async throws -> Report {
        let now = clock()
        let cutoff = StoreClock.milliseconds(now.addingTimeInterval(-Double(keepDays) * 86_400))
        var report = Report()
        for chain in try await trail.chainNames() {
            guard let last = try await trail.lastPrunable(chain: chain, beforeMs: cutoff) else { continue }
            if try await trail.checkpoint(chain: chain).map({ $0.sequence < last.sequence }) ?? true {
                let verification = try await AuditVerifier.verify(
                    trail, chain: chain, signer: signer, through: last.sequence)
                if let broken = verification.broken {
                    logger.error(
                        "audit retention: chain does not verify; nothing pruned from it",
                        metadata: ["chain": "\(chain)", "broken": "\(broken)"])
                    report.refused.append(verification)
                    continue
                }
                try await trail.saveCheckpoint(try signer.checkpoint(after: last, prunedAt: now))
                report.checkpointed.append(chain)
            }
            var removed = 0
            while true {
                let gone = try await trail.pruneCovered(chain: chain, limit: batch)
                removed += gone
                if gone < batch { break }
            }
            report.removed += removed
            progress(chain, removed)
        }
        return report
    }

    /// Prunes every `interval` until the task is cancelled; failures are logged, never thrown.
    public func run() async {
        await Periodic.run(every: interval, name: "audit retention", logger: logger) {
            let report = try await prune()
            logger.debug(
                "audit retention",
                metadata: [
                    "removed": "\(report.removed)", "keepDays": "\(keepDays)", "refused": "\(report.refused.count)",
                ])
        }
    }
}
