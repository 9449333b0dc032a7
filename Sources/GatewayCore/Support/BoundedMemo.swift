import Synchronization

/// Values derived from their key alone (so never stale), kept for reuse: at most `capacity`
/// keys, and a full memo starts afresh.
public final class BoundedMemo<Value: Sendable>: Sendable {
    private let capacity: Int
    private let entries = Mutex<[String: Value]>([:])

    public init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// The value of `key`, from `make` the first time.
    public func value(_ key: String, make: () throws -> Value) rethrows -> Value {
        if let hit = entries.withLock({ $0[key] }) { return hit }
        let value = try make()
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = value
        }
        return value
    }
}
