import Synchronization

/// A small in-process copy of hot answers in front of the shared cache (Redis), so a hot
/// key costs no network round trip. An entry is served only while its answer is fresh
/// AND for at most `lifetime` after it was read from the shared cache, so another
/// replica's refresh is seen within `lifetime`. Keys carry the tenant's `configVersion`
/// (and consent versions), so configuration changes never wait for this copy to expire.
public final class NearAnswers: Sendable {
    private let state = Mutex<[String: (answer: CachedAnswer, until: Int64)]>([:])
    private let capacity: Int
    private let lifetimeMilliseconds: Int64

    /// - Parameters:
    ///   - capacity: entries kept; when full, an arbitrary half is dropped.
    ///   - lifetime: the longest an entry is served without asking the shared cache.
    public init(capacity: Int = 4_096, lifetime: Duration = .seconds(1)) {
        self.capacity = max(1, capacity)
        lifetimeMilliseconds = lifetime.wholeMilliseconds
    }

    /// Whether this copy is in use (a zero lifetime turns it off).
    public var isEnabled: Bool { lifetimeMilliseconds > 0 }

    /// The answer for `key` while it may be served from here.
    func get(_ key: String, now: Int64) -> CachedAnswer? {
        guard isEnabled else { return nil }
        return state.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard now < entry.until else {
                entries[key] = nil
                return nil
            }
            return entry.answer
        }
    }

    /// Keeps `answer` while it is fresh, for at most the lifetime — or, with
    /// `wholeFreshness` (the shared cache could not store it, so no other replica's refresh
    /// can be missed), for as long as it is fresh.
    func put(_ key: String, _ answer: CachedAnswer, now: Int64, wholeFreshness: Bool = false) {
        let until = wholeFreshness ? answer.freshUntil : min(answer.freshUntil, now + lifetimeMilliseconds)
        guard isEnabled, until > now else { return }
        state.withLock { entries in
            if entries.count >= capacity, entries[key] == nil {
                for stale in entries.keys.prefix(capacity / 2) { entries[stale] = nil }
            }
            entries[key] = (answer, until)
        }
    }

    /// Number of entries held (expired ones included until touched).
    public var count: Int { state.withLock { $0.count } }
}
