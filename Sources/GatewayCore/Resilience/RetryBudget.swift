import Synchronization

/// Limits retries to a share of traffic (a token bucket): every first attempt deposits
/// `ratio` of a token, every retry withdraws one; the balance is capped at `maxTokens`.
/// During an outage retries stop once the bucket is dry, so the gateway does not
/// multiply the load on a failing upstream.
public final class RetryBudget: Sendable {
    private let ratio: Double
    private let maxTokens: Double
    private let tokens: Mutex<Double>

    public init(ratio: Double = 0.2, initialTokens: Double = 10, maxTokens: Double = 20) {
        self.ratio = ratio
        self.maxTokens = maxTokens
        tokens = Mutex(initialTokens)
    }

    /// Records a first attempt.
    public func deposit() {
        tokens.withLock { $0 = min(maxTokens, $0 + ratio) }
    }

    /// Takes a token for a retry; false when the budget is spent.
    public func withdraw() -> Bool {
        tokens.withLock { balance in
            guard balance >= 1 else { return false }
            balance -= 1
            return true
        }
    }
}
