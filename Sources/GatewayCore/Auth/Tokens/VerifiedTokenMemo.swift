import Foundation
import Synchronization

/// Verified access tokens keyed by the token string, each kept until its exp (at most
/// `maxAge`), bounded to `capacity` entries (an arbitrary half is dropped when full).
/// Only the signature and static claims are memoised; revocation is checked every time.
public final class VerifiedTokenMemo: Sendable {
    private let state = Mutex<[String: (claims: AccessTokenClaims, until: Date)]>([:])
    private let capacity: Int
    private let maxAge: TimeInterval

    public init(capacity: Int = 10_000, maxAge: TimeInterval = 300) {
        self.capacity = capacity
        self.maxAge = maxAge
    }

    func get(_ token: String, now: Date) -> AccessTokenClaims? {
        state.withLock { entries in
            guard let entry = entries[token] else { return nil }
            if entry.until <= now { entries[token] = nil; return nil }
            return entry.claims
        }
    }

    func put(_ token: String, _ claims: AccessTokenClaims, now: Date) {
        state.withLock { entries in
            if entries.count >= capacity {
                for key in entries.keys.prefix(capacity / 2) { entries[key] = nil }
            }
            entries[token] = (claims, min(claims.expiresAt, now.addingTimeInterval(maxAge)))
        }
    }

    /// Number of memoised tokens.
    public var count: Int { state.withLock { $0.count } }
}
