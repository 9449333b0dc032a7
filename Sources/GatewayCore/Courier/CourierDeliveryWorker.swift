import Foundation
import Logging

/// Works the courier outbox (issue 63 §4): claims due messages (leased, so replicas share the
/// work and a dead replica's claims return when their lease runs out), sends each through its
/// tenant's SMTP relay or SMS provider (a breaker per tenant × channel, so a relay that is down
/// is not called for every message), and records what came of it. A transient failure is tried
/// again with jittered backoff until the bound; a permanent one, or the bound, is the dead
/// letter (`failed`). At least once: a message is sent again only when the replica died between
/// the relay's answer and the record (its `Message-ID` is the same, so a reader can tell).
public final class CourierDeliveryWorker: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Messages claimed per round.
        public var batch: Int
        /// Sends in flight per replica.
        public var concurrency: Int
        /// How long a claim keeps other workers off.
        public var lease: Duration
        /// The pause after a round that found less than a batch.
        public var idlePoll: Duration
        /// Attempts per message and the backoff between them (full jitter).
        public var retry: RetryPolicy
        /// How often the backlog gauges are sampled.
        public var backlogSample: Duration

        public init(
            batch: Int = 64, concurrency: Int = 16, lease: Duration = .seconds(90), idlePoll: Duration = .milliseconds(250),
            retry: RetryPolicy = RetryPolicy(maxAttempts: 8, baseDelay: .seconds(2), maxDelay: .seconds(120)),
            backlogSample: Duration = .seconds(10)
        ) {
            self.batch = max(1, batch)
            self.concurrency = max(1, concurrency)
            self.lease = lease
            self.idlePoll = idlePoll
            self.retry = retry
            self.backlogSample = backlogSample
        }
    }

    private let outbox: any CourierOutbox
    private let settings: @Sendable (_ tenantID: String) async throws -> CourierSettings?
    private let mail: any MailTransport
    private let sms: (any SMSTransport)?
    private let guards: UpstreamGuards
    private let metrics: CourierMetrics
    private let configuration: Configuration
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let warnings = WarningThrottle()
    /// Settings by tenant for a few seconds: a change reaches the workers in 5 s.
    private let settingsMemo: ShortLivedMemo<CourierSettings?>
    private let rounds: OutboxRounds

    /// - Parameter settings: the tenant's courier settings (nil: no such tenant).
    public init(
        outbox: any CourierOutbox, settings: @escaping @Sendable (_ tenantID: String) async throws -> CourierSettings?,
        mail: any MailTransport, sms: (any SMSTransport)?, guards: UpstreamGuards, metrics: CourierMetrics,
        configuration: Configuration = Configuration(), clock: WallClock, logger: Logger
    ) {
        self.settingsMemo = ShortLivedMemo(lifetime: .seconds(5), now: clock.instant)
        self.outbox = outbox
        self.settings = settings
        self.mail = mail
        self.sms = sms
        self.guards = guards
        self.metrics = metrics
        self.configuration = configuration
        self.rounds = OutboxRounds(
            batch: configuration.batch, idlePoll: configuration.idlePoll, backlogSample: configuration.backlogSample)
        self.clock = clock.now
        self.logger = logger
    }

    /// One round: claim due messages, send them, record. Returns how many it claimed.
    @discardableResult
    public func deliverDue() async throws -> Int {
        guard !isStopping else { return 0 }
        let claimed = try await outbox.claim(limit: configuration.batch, lease: configuration.lease, now: clock())
        guard !claimed.isEmpty else { return 0 }
        var tenants: [String: CourierSettings?] = [:]
        for tenantID in Set(claimed.map(\.message.tenantID)) {
            tenants[tenantID] = .some(try await settingsMemo.value(tenantID) { try await self.settings(tenantID) })
        }
        let (results, unstarted) = await withTaskGroup(of: CourierResult.self) { group in
            var results: [CourierResult] = []
            var next = claimed.makeIterator()
            func start(_ claim: ClaimedCourierMessage) {
                let tenant = tenants[claim.message.tenantID] ?? nil
                group.addTask { CourierResult(await self.send(claim, settings: tenant), of: claim) }
            }
            for _ in 0..<configuration.concurrency {
                guard let claim = next.next() else { break }
                start(claim)
            }
            for await result in group {
                results.append(result)
                if !isStopping, let claim = next.next() { start(claim) }
            }
            return (results, Array(IteratorSequence(next)))
        }
        try await outbox.record(results, now: clock())
        if !unstarted.isEmpty { try await outbox.release(unstarted) }
        return claimed.count
    }

    /// Stops the worker gracefully: no more claims, sends in flight finish and are recorded,
    /// claims not yet sent go back to the outbox. ``run()`` returns then.
    public func stop() {
        rounds.stop()
    }

    private var isStopping: Bool { rounds.isStopping }

    /// Rounds until cancelled or stopped; failures are logged (throttled) and the loop goes on.
    public func run() async {
        await rounds.run(
            sample: {
                let now = self.clock()
                self.metrics.backlog(try await self.outbox.backlog(now: now), now: now)
            },
            round: { try await self.deliverDue() },
            failed: { error in
                self.warnings.warning(
                    self.logger, "courier round failed", kind: "courier-round", metadata: ["error": "\(error)"])
            })
    }

    /// Sends one message through its channel and decides what the answer means.
    private func send(_ claim: ClaimedCourierMessage, settings: CourierSettings?) async -> CourierOutcome {
        let message = claim.message
        let upstream = guards.guardFor(tenantID: message.tenantID, upstream: "courier-" + message.channel.rawValue)
        let error: CourierDeliveryError?
        switch message.channel {
        case .email:
            guard let relay = settings?.smtp else { return conclude(claim, .permanent("not_configured: no SMTP relay")) }
            guard upstream.breaker.acquire() else { return conclude(claim, .transient("circuit_open")) }
            error = await Self.attempt {
                try await self.mail.send(
                    MailMessage(to: message.to, subject: message.subject, text: message.text), via: relay,
                    messageID: message.id)
            }
        case .sms:
            guard let provider = settings?.sms, let sms else {
                return conclude(claim, .permanent("not_configured: no SMS provider"))
            }
            guard upstream.breaker.acquire() else { return conclude(claim, .transient("circuit_open")) }
            error = await Self.attempt {
                try await sms.send(text: message.text, to: message.to, via: provider, messageID: message.id)
            }
        }
        if case .transient = error { upstream.breaker.record(failure: true) } else { upstream.breaker.record(failure: false) }
        return conclude(claim, error)
    }

    private static func attempt(_ body: () async throws -> Void) async -> CourierDeliveryError? {
        do {
            try await body()
            return nil
        } catch let error as CourierDeliveryError {
            return error
        } catch {
            return .transient("\(error)")
        }
    }

    private func conclude(_ claim: ClaimedCourierMessage, _ found: CourierDeliveryError?) -> CourierOutcome {
        let message = claim.message
        // A relay's refusal often names the address (`550 <ken@…>: no such user`): the reason is
        // kept for operators with the recipient masked, as everywhere else.
        let error = found.map { error -> CourierDeliveryError in
            func scrub(_ text: String) -> String {
                text.replacingOccurrences(of: message.to, with: message.maskedRecipient, options: .caseInsensitive)
            }
            return switch error {
            case .transient(let reason): .transient(scrub(reason))
            case .permanent(let reason): .permanent(scrub(reason))
            }
        }
        switch error {
        case nil:
            metrics.attempted(message, outcome: "sent")
            return .sent
        case .permanent(let reason):
            metrics.failed(message, reason: reason)
            metrics.attempted(message, outcome: "failed")
            if reason.hasPrefix("not_configured") {
                warnings.warning(
                    logger, "courier has a message for a channel the tenant has not set", kind: "courier-config",
                    metadata: ["tenant": "\(message.tenantID)", "channel": "\(message.channel.rawValue)"])
            }
            return .failed(reason: String(reason.prefix(200)))
        case .transient(let reason):
            metrics.failed(message, reason: reason)
            let attempt = claim.attempts + 1
            guard attempt < configuration.retry.maxAttempts else {
                metrics.attempted(message, outcome: "failed")
                return .failed(reason: "retries ran out: " + String(reason.prefix(180)))
            }
            metrics.attempted(message, outcome: "retry")
            let delay = configuration.retry.delay(beforeRetry: attempt)
            return .retry(
                at: clock().addingTimeInterval(TimeInterval(delay.wholeMilliseconds) / 1000),
                reason: String(reason.prefix(200)))
        }
    }
}
