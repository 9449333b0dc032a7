import Foundation

/// What the console's release chart draws (issue 49): each side's opens, failures and users
/// per window of ``ReleaseHealth`` (10 minutes by default), for the last ``kept`` windows,
/// read from the halt's own counters in the shared cache (so every replica draws the same).
/// A window's counts are the halt's: attributable events only, one per user per window.
public struct ReleaseHealthSeries: Sendable {
    /// How many windows the counters are kept for (2 hours at the default window).
    public static let kept = 12

    /// One window: when it started and what each side counted in it.
    public struct Point: Sendable, Equatable {
        public var start: Date
        public var candidate: ReleaseHealth.Tally
        public var stable: ReleaseHealth.Tally
    }

    private let cache: any Cache
    private let window: TimeInterval

    public init(cache: any Cache, window: Duration = ReleaseHealth.defaultWindow) {
        self.cache = cache
        self.window = Double(window.components.seconds)
    }

    /// The last `count` windows up to the one holding `now`, oldest first: every counter in
    /// one multi-key read (``Cache/getMany(_:)``, one `MGET` on Redis).
    public func points(
        tenantID: String, miniAppID: String, candidate version: String, now: Date, count: Int = kept
    ) async throws -> [Point] {
        let current = Int64((now.timeIntervalSince1970 / window).rounded(.down))
        let buckets = Array((current - Int64(max(1, min(count, Self.kept))) + 1)...current)
        let keys = buckets.flatMap { bucket in
            [true, false].flatMap { candidate in
                ReleaseHealth.Series.allCases.map { series in
                    ReleaseHealth.key(tenantID, miniAppID, version, candidate, series, bucket: bucket)
                }
            }
        }
        let values = try await cache.getMany(keys).map { value in
            Double(Int(String(decoding: value ?? [], as: UTF8.self)) ?? 0)
        }
        let perSide = ReleaseHealth.Series.allCases.count
        return buckets.enumerated().map { index, bucket in
            let side = { (offset: Int) in
                let first = (index * 2 + offset) * perSide
                return ReleaseHealth.Tally(
                    opens: values[first], failures: values[first + 1], users: values[first + 2])
            }
            return Point(
                start: Date(timeIntervalSince1970: Double(bucket) * window), candidate: side(0), stable: side(1))
        }
    }
}
