import Synchronization

/// A small in-process copy of hot answers in front of the shared cache (Redis), so a hot
/// key costs no network round trip. An entry is served only while its answer is fresh
/// AND for at most `lifetime` after it was read from the shared cache, so another
/// replica's refresh is seen within `lifetime`. Keys carry a digest of the upstream settings
/// the answer depends on (``CacheKey/answer(tenant:kind:_:)``), so changing them never waits
/// for this copy to expire.
public final class NearAnswers: Sendable {
    /// An entry; `shareAt` is set for answers the shared cache could not store: when the next
    /// attempt to store them there is due.
    private struct Entry {
        var answer: CachedAnswer
        var until: Int64
        var shareAt: Int64?
    }

    private let state = Mutex<[String: Entry]>([:])
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
        lookUp(key, now: now)?.answer
    }

    /// The answer for `key` while it may be served from here, and whether the caller should
    /// now try to store it in the shared cache (an answer kept here because the shared cache
    /// was down: at most one attempt per lifetime, so a shared cache that comes back is
    /// refilled within a lifetime instead of being bypassed for the answer's whole freshness).
    func lookUp(_ key: String, now: Int64) -> (answer: CachedAnswer, share: Bool)? {
        guard isEnabled else { return nil }
        return state.withLock { entries in
            guard var entry = entries[key] else { return nil }
            guard now < entry.until else {
                entries[key] = nil
                return nil
            }
            guard let shareAt = entry.shareAt, now >= shareAt else { return (entry.answer, false) }
            entry.shareAt = now + lifetimeMilliseconds
            entries[key] = entry
            return (entry.answer, true)
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
            entries[key] = Entry(
                answer: answer, until: until, shareAt: wholeFreshness ? now + lifetimeMilliseconds : nil)
        }
    }

    /// Whether `key` is held only here, waiting to be stored in the shared cache.
    func awaitsSharing(_ key: String) -> Bool {
        state.withLock { $0[key]?.shareAt != nil }
    }

    /// Number of entries held (expired ones included until touched).
    public var count: Int { state.withLock { $0.count } }
}
