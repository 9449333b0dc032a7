import Foundation

/// Access-token ids revoked before their expiry, kept in the ``Cache`` until they expire.
public struct RevokedTokens: Sendable {
    let cache: any Cache

    public init(cache: any Cache) {
        self.cache = cache
    }

    /// Marks `jti` revoked until `expiresAt` (+ clock skew).
    public func revoke(tenantID: String, jti: String, expiresAt: Date, now: Date = Date()) async throws {
        let seconds = max(1, Int(expiresAt.timeIntervalSince(now).rounded(.up)) + 60)
        try await cache.set(key(tenantID, jti), [1], ttl: .seconds(seconds))
    }

    /// Whether `jti` is revoked.
    public func isRevoked(tenantID: String, jti: String) async throws -> Bool {
        try await cache.get(key(tenantID, jti)) != nil
    }

    private func key(_ tenantID: String, _ jti: String) -> String { "oauth:revoked-jti:\(tenantID):\(jti)" }
}
