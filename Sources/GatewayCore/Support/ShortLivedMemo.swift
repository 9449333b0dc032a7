import Synchronization

/// Values by key for a short lifetime (a few seconds): settings read on a hot path whose
/// changes may take that long to reach every replica (trusted-issuer lists, a client's DPoP
/// nonce requirement). At most `capacity` keys; a full memo starts afresh.
public final class ShortLivedMemo<Value: Sendable>: Sendable {
    private let lifetime: Duration
    private let capacity: Int
    private let entries = Mutex<[String: (until: ContinuousClock.Instant, value: Value)]>([:])
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameter now: the monotonic clock lifetimes run on (``WallClock/instant``).
    public init(
        lifetime: Duration, capacity: Int = 10_000,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    /// The value of `key`, from `load` when it is missing or older than the lifetime.
    public func value(_ key: String, load: () async throws -> Value) async throws -> Value {
        let now = now()
        if let hit = entries.withLock({ $0[key] }), hit.until > now { return hit.value }
        let value = try await load()
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = (until: now + lifetime, value: value)
        }
        return value
    }
}
