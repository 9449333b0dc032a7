import Foundation
import Synchronization

/// What the gateway itself served: which version of a mini app it decided to give which user,
/// recorded in the shared cache (Redis: every replica sees what any replica served) for as long
/// as the automatic halt's window looks back. ``ReleaseHealth`` counts an analytics event for a
/// version only when this ledger says the gateway served that version to that user, so a user
/// cannot report opens or failures of a version they were never given.
///
/// Only mini apps whose policy the halt watches (an active candidate with an ``AutoHaltRule``)
/// are recorded, and each user × mini app × version is written once per `rewrite` per replica
/// (an in-process memo of what this replica wrote), so a request pays a cache write at most
/// once in that time; the fast path answers without suspending once the memo holds the entry.
public struct ServedVersions: Sendable {
    private let cache: any Cache
    private let lifetime: Duration
    private let rewrite: Duration
    private let clock: WallClock
    private let written: RecentKeys

    /// - Parameters:
    ///   - window: the automatic halt's window; an entry lives twice that (plus a minute), so
    ///     an event the window still counts finds what was served when it began.
    ///   - capacity: entries this replica remembers writing (a full memo starts afresh).
    public init(cache: any Cache, window: Duration, clock: WallClock, capacity: Int = 100_000) {
        self.cache = cache
        self.lifetime = window * 2 + .seconds(60)
        self.rewrite = window / 2
        self.clock = clock
        self.written = RecentKeys(capacity: capacity)
    }

    /// Whether `policy` is one the halt watches, so what it serves must be recorded.
    public static func watches(_ policy: ReleasePolicy) -> Bool {
        policy.autoHalt != nil && policy.candidate?.state == .active
    }

    /// Whether this replica recorded `version` served to `userID` recently enough that
    /// recording it again may wait (never suspends).
    public func isRecorded(tenantID: String, miniAppID: String, version: String, userID: String) -> Bool {
        written.contains(Self.key(tenantID, miniAppID, version, userID), now: clock.instant())
    }

    /// Records that `userID` was served `version` of `miniAppID`. A cache failure is not the
    /// request's: the answer goes out, and that user's events of the version do not count.
    public func record(tenantID: String, miniAppID: String, version: String, userID: String) async {
        let key = Self.key(tenantID, miniAppID, version, userID)
        let now = clock.instant()
        guard !written.contains(key, now: now) else { return }
        do {
            try await cache.set(key, [1], ttl: lifetime)
            written.insert(key, until: now + rewrite)
        } catch {
            // Fail open for the answer; the halt simply cannot attribute this user's events.
        }
    }

    /// Whether the gateway (any replica) served `version` to `userID` within the lifetime.
    public func wasServed(tenantID: String, miniAppID: String, version: String, userID: String) async throws -> Bool {
        try await cache.get(Self.key(tenantID, miniAppID, version, userID)) != nil
    }

    static func key(_ tenantID: String, _ miniAppID: String, _ version: String, _ userID: String) -> String {
        CacheKey.servedVersion(tenantID: tenantID, miniAppID: miniAppID, version: version, userID: userID)
    }
}

/// Keys with an end time, at most `capacity` (a full set starts afresh).
final class RecentKeys: Sendable {
    private let capacity: Int
    private let entries = Mutex<[String: ContinuousClock.Instant]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    func contains(_ key: String, now: ContinuousClock.Instant) -> Bool {
        entries.withLock { $0[key].map { $0 > now } ?? false }
    }

    func insert(_ key: String, until: ContinuousClock.Instant) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = until
        }
    }
}
