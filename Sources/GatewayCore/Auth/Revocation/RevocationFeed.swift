/// Shares revocations between gateway replicas.
///
/// ``record(_:until:)`` stores a revocation for its lifetime AND announces it;
/// ``follow(into:load:)`` keeps a ``RevocationMirror`` complete: it subscribes to
/// announcements, then loads every current revocation with `load`, marks the mirror
/// synced, and feeds it until the subscription ends (then marks it unsynced and throws).
public protocol RevocationFeed: Sendable {
    /// Stores and announces `key` as revoked until `until` (ms since 1970).
    func record(_ key: String, until: Int64) async throws
    /// Whether `key` is revoked, asked of the feed's shared store (the mirror's fallback
    /// when there is no durable store).
    func isRecorded(_ key: String) async throws -> Bool
    /// Every revocation the feed itself holds (key → until, ms).
    func loadAll() async throws -> [String: Int64]
    /// Subscribes, loads with `load`, and feeds `mirror` until the subscription breaks or
    /// the task is cancelled.
    func follow(
        into mirror: RevocationMirror, load: @escaping @Sendable () async throws -> [String: Int64]) async throws
}

extension RevocationFeed {
    /// ``follow(into:load:)`` loading from the feed's own store.
    public func follow(into mirror: RevocationMirror) async throws {
        try await follow(into: mirror, load: { try await loadAll() })
    }
}
