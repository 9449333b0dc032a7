import Foundation

/// A counter per fixed window of the shared cache (an hour, a day), so every replica spends
/// one budget: ``spend(_:limit:window:)`` counts one and says whether the limit was passed.
/// The counter lives one window past its own, then goes.
struct FixedWindow: Sendable {
    let cache: any Cache
    let clock: WallClock

    /// Counts one under `key` in the current window of `window` seconds: nil while within
    /// `limit`, else how long until the window ends.
    func spend(_ key: String, limit: Int, window: Int64) async throws -> Duration? {
        let now = clock.now().timeIntervalSince1970
        let index = Int64(now / Double(window))
        let spent = try await cache.increment("\(key):\(index)", by: 1, ttl: .seconds(window * 2))
        guard spent > Int64(limit) else { return nil }
        let end = Double(index + 1) * Double(window)
        return .milliseconds(Int64(((end - now) * 1000).rounded(.up)))
    }
}
