import Foundation
import Synchronization

/// In-process ``Cache``: a bounded LRU with per-entry TTL, used when no Redis URL is
/// configured (the embedded default of `make run`). Not shared across replicas.
public final class MemoryCache: Cache {
    private let store: Mutex<LRUStore>
    /// Monotonic time for the entries' lifetimes (the clock's `instant`: a test moves it).
    private let instant: @Sendable () -> ContinuousClock.Instant

    public var kind: String { "memory" }

    /// - Parameters:
    ///   - maxEntries: entries kept before the least recently used is evicted.
    ///   - maxBytes: total value bytes kept before eviction.
    ///   - clock: whose `instant` times the entries' lifetimes.
    public init(maxEntries: Int = 10_000, maxBytes: Int = 64 * 1024 * 1024, clock: WallClock = .system) {
        store = Mutex(LRUStore(maxEntries: maxEntries, maxBytes: maxBytes))
        instant = clock.instant
    }

    /// Number of live or not-yet-collected entries (for tests and metrics).
    public var count: Int { store.withLock { $0.count } }

    public func get(_ key: String) async throws -> [UInt8]? {
        let now = instant()
        return store.withLock { $0.value(for: key, now: now) }
    }

    public func set(_ key: String, _ value: [UInt8], ttl: Duration) async throws {
        let expiresAt = instant().advanced(by: ttl)
        store.withLock { $0.insert(key, value, expiresAt: expiresAt) }
    }

    public func setIfAbsent(_ key: String, _ value: [UInt8], ttl: Duration) async throws -> Bool {
        let now = instant()
        return store.withLock { lru in
            guard lru.value(for: key, now: now) == nil else { return false }
            lru.insert(key, value, expiresAt: now.advanced(by: ttl))
            return true
        }
    }

    public func take(_ key: String) async throws -> [UInt8]? {
        let now = instant()
        return store.withLock { lru in
            guard let value = lru.value(for: key, now: now) else { return nil }
            lru.removeValue(for: key)
            return value
        }
    }

    public func replace(_ key: String, with value: [UInt8], ttl: Duration) async throws -> [UInt8]? {
        let now = instant()
        return store.withLock { lru in
            guard let old = lru.value(for: key, now: now) else { return nil }
            lru.insert(key, value, expiresAt: now.advanced(by: ttl))
            return old
        }
    }

    @discardableResult
    public func delete(_ keys: [String]) async throws -> Int {
        let now = instant()
        return store.withLock { lru in
            keys.reduce(0) { removed, key in
                let live = lru.value(for: key, now: now) != nil
                lru.removeValue(for: key)
                return removed + (live ? 1 : 0)
            }
        }
    }

    public func increment(_ key: String, by: Int64, ttl: Duration) async throws -> Int64 {
        let now = instant()
        return store.withLock { lru in
            let current = lru.value(for: key, now: now).flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0
            let next = current + by
            // A counter keeps the expiry it was created with, as Redis INCR + EXPIRE NX does.
            let expiresAt = current == 0 ? now.advanced(by: ttl) : (lru.expiry(for: key) ?? now.advanced(by: ttl))
            lru.insert(key, Array(String(next).utf8), expiresAt: expiresAt)
            return next
        }
    }

    public func ping() async throws {}
}
