/// Shares revocations between gateway replicas.
///
/// ``record(_:until:)`` stores a revocation durably for its lifetime AND announces it;
/// ``follow(into:)`` keeps a ``RevocationMirror`` complete: it subscribes to
/// announcements, then loads every current revocation, marks the mirror synced, and
/// feeds it until the subscription ends (then marks it unsynced and throws).
public protocol RevocationFeed: Sendable {
    /// Stores and announces `key` as revoked until `until` (ms since 1970).
    func record(_ key: String, until: Int64) async throws
    /// Whether `key` is revoked, asked of the shared store (the mirror's fallback).
    func isRecorded(_ key: String) async throws -> Bool
    /// Subscribes, loads, and feeds `mirror` until the subscription breaks or the task is cancelled.
    func follow(into mirror: RevocationMirror) async throws
}
