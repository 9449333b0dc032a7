import Foundation
import Logging

/// Works the push outbox: claims due deliveries (leased, so replicas share the work and a dead
/// replica's claims return when their lease runs out), calls the provider of each with the
/// tenant's credentials (a bulkhead and a breaker per tenant × provider), and records outcomes
/// 64 at a time. At least once: a device is called again only when the replica died between
/// the provider's answer and the record (the collapse id makes such a repeat replace the
/// notification on the device), or when a round outlived its lease.
///
/// A replica that shuts down loses and repeats nothing (``stop()``): the worker claims no more,
/// lets the provider calls in flight finish, records them, and hands the claims it had not
/// started back to the outbox, so another replica takes them at once, not when the lease ends.
public final class PushDeliveryWorker: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Deliveries claimed per round (and so at most repeated if this replica dies mid-round).
        public var batch: Int
        /// Provider calls in flight per replica.
        public var concurrency: Int
        /// How long a claim keeps other workers off.
        public var lease: Duration
        /// The pause after a round that found less than a batch.
        public var idlePoll: Duration
        /// Attempts per delivery and the backoff between them (full jitter).
        public var retry: RetryPolicy
        /// How often the backlog gauges are sampled.
        public var backlogSample: Duration
        /// Outcomes recorded per transaction: what a replica that dies may repeat, besides the
        /// calls it has in flight.
        public var recordEvery: Int

        public init(
            batch: Int = 256, concurrency: Int = 64, lease: Duration = .seconds(60),
            idlePoll: Duration = .milliseconds(250),
            retry: RetryPolicy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(5), maxDelay: .seconds(600)),
            backlogSample: Duration = .seconds(10), recordEvery: Int = 64
        ) {
            self.batch = max(1, batch)
            self.concurrency = max(1, concurrency)
            self.lease = lease
            self.idlePoll = idlePoll
            self.retry = retry
            self.backlogSample = backlogSample
            self.recordEvery = max(1, recordEvery)
        }
    }

    private let queue: any PushDeliveryQueue
    private let credentials: any PushCredentialStore
    private let providers: [PushProvider: any PushProviderClient]
    private let guards: UpstreamGuards
    private let metrics: PushMetrics
    private let configuration: Configuration
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let warnings = WarningThrottle()
    /// Credentials by tenant × provider for a few seconds: a change reaches the workers in 5 s.
    private let credentialMemo = ShortLivedMemo<PushCredentials?>(lifetime: .seconds(5))
    private let rounds: OutboxRounds

    public init(
        queue: any PushDeliveryQueue, credentials: any PushCredentialStore,
        providers: [PushProvider: any PushProviderClient], guards: UpstreamGuards, metrics: PushMetrics,
        configuration: Configuration = Configuration(), clock: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.queue = queue
        self.credentials = credentials
        self.providers = providers
        self.guards = guards
        self.metrics = metrics
        self.configuration = configuration
        self.rounds = OutboxRounds(
            batch: configuration.batch, idlePoll: configuration.idlePoll, backlogSample: configuration.backlogSample)
        self.clock = clock
        self.logger = logger
    }

    /// One round: claim due deliveries, call their providers, record. Returns how many it claimed.
    @discardableResult
    public func deliverDue() async throws -> Int {
        guard !isStopping else { return 0 }
        let claimed = try await queue.claim(limit: configuration.batch, lease: configuration.lease, now: clock())
        guard !claimed.isEmpty else { return 0 }
        var accounts: [String: PushCredentials?] = [:]
        for delivery in claimed {
            let key = delivery.tenantID + "\u{0}" + delivery.provider.rawValue
            guard accounts[key] == nil else { continue }
            accounts[key] = .some(
                try await credentialMemo.value(key) {
                    try await credentials.credentials(tenantID: delivery.tenantID, provider: delivery.provider)
                })
        }
        let unstarted: [ClaimedDelivery] = try await withThrowingTaskGroup(of: DeliveryResult.self) { group in
            // Outcomes are recorded every `recordEvery` calls, so a replica that dies repeats at
            // most that many (plus the calls in flight), not the whole round.
            var results: [DeliveryResult] = []
            results.reserveCapacity(configuration.recordEvery)
            var next = claimed.makeIterator()
            func start(_ delivery: ClaimedDelivery) {
                let account = accounts[delivery.tenantID + "\u{0}" + delivery.provider.rawValue] ?? nil
                group.addTask { DeliveryResult(await self.deliver(delivery, account: account), of: delivery) }
            }
            for _ in 0..<configuration.concurrency {
                guard let delivery = next.next() else { break }
                start(delivery)
            }
            for try await result in group {
                results.append(result)
                if results.count >= configuration.recordEvery {
                    try await queue.record(results, now: clock())
                    results.removeAll(keepingCapacity: true)
                }
                // Stopping: the calls in flight finish; nothing new starts.
                if !isStopping, let delivery = next.next() { start(delivery) }
            }
            try await queue.record(results, now: clock())
            return Array(IteratorSequence(next))
        }
        // Claims never called go back to the outbox now, not when their lease runs out.
        if !unstarted.isEmpty {
            try await queue.release(unstarted)
            metrics.released(unstarted.count)
        }
        return claimed.count
    }

    /// Stops the worker gracefully (a replica shutting down): no more claims, the calls in flight
    /// finish and are recorded, the claims not yet called are handed back. ``run()`` returns then.
    public func stop() {
        rounds.stop()
    }

    private var isStopping: Bool { rounds.isStopping }

    /// Rounds until cancelled; pauses when the outbox has less than a batch due. Failures are
    /// logged (throttled) and the loop goes on.
    public func run() async {
        await rounds.run(
            sample: {
                let now = self.clock()
                self.metrics.backlog(try await self.queue.backlog(now: now), now: now)
            },
            round: { try await self.deliverDue() },
            failed: { error in
                self.warnings.warning(
                    self.logger, "push delivery round failed", kind: "push-round", metadata: ["error": "\(error)"])
            })
    }

    /// Calls the provider for one delivery and decides what the answer means.
    private func deliver(_ delivery: ClaimedDelivery, account: PushCredentials?) async -> DeliveryOutcome {
        guard let account, let client = providers[delivery.provider] else {
            return conclude(delivery, .rejected(reason: "not_configured"))
        }
        let upstream = guards.guardFor(tenantID: delivery.tenantID, upstream: "push-" + delivery.provider.rawValue)
        let answer: ProviderAnswer
        do {
            answer = try await upstream.bulkhead.run {
                guard upstream.breaker.acquire() else {
                    return ProviderAnswer.retryable(reason: "circuit_open", retryAfter: nil, providerFault: false)
                }
                let answer = await client.send(delivery, credentials: account)
                if case .retryable(_, _, let fault) = answer {
                    upstream.breaker.record(failure: fault)
                } else {
                    upstream.breaker.record(failure: false)
                }
                return answer
            }
        } catch {
            answer = .retryable(reason: "overloaded", retryAfter: nil, providerFault: false)
        }
        return conclude(delivery, answer)
    }

    private func conclude(_ delivery: ClaimedDelivery, _ answer: ProviderAnswer) -> DeliveryOutcome {
        switch answer {
        case .accepted:
            metrics.delivered(delivery, outcome: "sent")
            return .sent
        case .invalidToken(let reason):
            metrics.failed(delivery, reason: reason)
            metrics.delivered(delivery, outcome: "invalid_token")
            return .invalidToken
        case .rejected(let reason):
            metrics.failed(delivery, reason: reason)
            metrics.delivered(delivery, outcome: "failed")
            if reason == "not_configured" || reason.hasPrefix("token_endpoint_") || reason.hasSuffix("ProviderToken") {
                warnings.warning(
                    logger, "push provider refused the tenant's credentials or none are set", kind: "push-credentials",
                    metadata: [
                        "tenant": "\(delivery.tenantID)", "provider": "\(delivery.provider.rawValue)",
                        "reason": "\(reason)",
                    ])
            }
            return .failed
        case .retryable(let reason, let retryAfter, _):
            metrics.failed(delivery, reason: reason)
            let attempt = delivery.attempts + 1
            guard attempt < configuration.retry.maxAttempts else {
                metrics.delivered(delivery, outcome: "failed")
                return .failed
            }
            metrics.delivered(delivery, outcome: "retry")
            let delay = max(configuration.retry.delay(beforeRetry: attempt), retryAfter ?? .zero)
            return .retry(at: clock().addingTimeInterval(TimeInterval(delay.wholeMilliseconds) / 1000))
        }
    }
}
