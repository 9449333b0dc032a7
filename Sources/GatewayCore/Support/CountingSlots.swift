import Synchronization

/// A counter of things in use with a limit (running imports, …): ``take()`` answers false
/// at the limit; every successful take is given back once with ``give()``.
public final class CountingSlots: Sendable {
    private let limit: Int
    private let used = Mutex(0)

    public init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot; false when all are taken.
    public func take() -> Bool {
        used.withLock { used in
            guard used < limit else { return false }
            used += 1
            return true
        }
    }

    /// Gives a taken slot back.
    public func give() {
        used.withLock { $0 = max(0, $0 - 1) }
    }
}
