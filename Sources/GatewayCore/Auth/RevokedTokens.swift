import Foundation

/// Access-token ids revoked before their expiry, kept until they expire.
///
/// Without a ``RevocationFeed`` they live in the ``Cache``. With one (Redis), they are
/// recorded and announced through it, and ``isRevoked(tenantID:jti:)`` is answered
/// from the in-process ``RevocationMirror`` while the mirror is synced, with no round
/// trip; while it is not, the shared store is asked.
public struct RevokedTokens: Sendable {
    let cache: any Cache
    let feed: (any RevocationFeed)?
    let mirror: RevocationMirror?

    public init(cache: any Cache, feed: (any RevocationFeed)? = nil, mirror: RevocationMirror? = nil) {
        self.cache = cache
        self.feed = feed
        self.mirror = feed == nil ? nil : mirror
    }

    /// Marks `jti` revoked until `expiresAt` (+ clock skew).
    public func revoke(tenantID: String, jti: String, expiresAt: Date, now: Date = Date()) async throws {
        let seconds = max(1, Int(expiresAt.timeIntervalSince(now).rounded(.up)) + 60)
        let key = key(tenantID, jti)
        if let feed {
            let nowMS = Int64(now.timeIntervalSince1970 * 1000)
            let until = nowMS + Int64(seconds) * 1000
            try await feed.record(key, until: until)
            mirror?.add(key, until: until, now: nowMS)
        } else {
            try await cache.set(key, [1], ttl: .seconds(seconds))
        }
    }

    /// Whether `jti` is revoked.
    public func isRevoked(tenantID: String, jti: String) async throws -> Bool {
        let key = key(tenantID, jti)
        guard let feed else { return try await cache.get(key) != nil }
        if let known = mirror?.lookup(key, now: CachedAnswer.now()) { return known }
        return try await feed.isRecorded(key)
    }

    private func key(_ tenantID: String, _ jti: String) -> String { "oauth:revoked-jti:\(tenantID):\(jti)" }
}
