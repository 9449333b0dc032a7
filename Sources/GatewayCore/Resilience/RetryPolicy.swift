/// Retries for idempotent GETs: at most `maxAttempts` in all, full-jitter exponential
/// backoff (`baseDelay * 2^n`, capped at `maxDelay`), never past the deadline.
public struct RetryPolicy: Sendable, Equatable {
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(25), maxDelay: Duration = .milliseconds(250))
    {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The jittered delay before retry number `retry` (1-based).
    public func delay(beforeRetry retry: Int) -> Duration {
        let ceiling = min(maxDelay, baseDelay * (1 << min(retry - 1, 16)))
        return ceiling * Double.random(in: 0...1)
    }
}
