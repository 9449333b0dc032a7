/// Everything that protects one tenant × upstream: circuit breaker, bulkhead, retry
/// policy and budget. ``run(deadline:_:)`` applies them around one logical GET.
public final class UpstreamGuard: Sendable {
    public let breaker: CircuitBreaker
    public let bulkhead: Bulkhead
    public let retry: RetryPolicy
    public let budget: RetryBudget

    public init(breaker: CircuitBreaker, bulkhead: Bulkhead, retry: RetryPolicy, budget: RetryBudget) {
        self.breaker = breaker
        self.bulkhead = bulkhead
        self.retry = retry
        self.budget = budget
    }

    /// Runs `attempt` (an idempotent GET) with retries on connection errors and 5xx only.
    /// The breaker sees one outcome per logical call; a 4xx counts as a healthy answer.
    public func run<T: Sendable>(deadline: ContinuousClock.Instant, _ attempt: () async throws -> T) async throws -> T {
        try await runOnce { try await withRetries(deadline: deadline, attempt) }
    }

    /// Runs `attempt` once (a call that is not idempotent: a POST): breaker and bulkhead, no retries.
    public func runOnce<T: Sendable>(_ attempt: () async throws -> T) async throws -> T {
        guard breaker.acquire() else { throw UpstreamError.circuitOpen }
        do {
            let value = try await bulkhead.run { try await attempt() }
            breaker.record(failure: false)
            return value
        } catch let error as UpstreamError {
            breaker.record(failure: error.isUpstreamFailure)
            throw error
        } catch {
            breaker.record(failure: false)
            throw error
        }
    }

    private func withRetries<T: Sendable>(
        deadline: ContinuousClock.Instant, _ attempt: () async throws -> T
    ) async throws -> T {
        budget.deposit()
        var number = 1
        while true {
            do {
                return try await attempt()
            } catch let error as UpstreamError {
                guard error.isRetryable, number < retry.maxAttempts else { throw error }
                let delay = retry.delay(beforeRetry: number)
                guard ContinuousClock.now + delay < deadline, budget.withdraw() else { throw error }
                try await Task.sleep(for: delay)
                number += 1
            }
        }
    }
}
