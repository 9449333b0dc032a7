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

    /// The last `count` windows up to the one holding `now`, oldest first.
    public func points(
        tenantID: String, miniAppID: String, candidate version: String, now: Date, count: Int = kept
    ) async throws -> [Point] {
        let current = Int64((now.timeIntervalSince1970 / window).rounded(.down))
        var points: [Point] = []
        for bucket in (current - Int64(max(1, min(count, Self.kept))) + 1)...current {
            var sides: [ReleaseHealth.Tally] = []
            for candidate in [true, false] {
                var values: [Double] = []
                for series in ReleaseHealth.Series.allCases {
                    let key = ReleaseHealth.key(tenantID, miniAppID, version, candidate, series, bucket: bucket)
                    values.append(Double(Int(String(decoding: try await cache.get(key) ?? [], as: UTF8.self)) ?? 0))
                }
                sides.append(ReleaseHealth.Tally(opens: values[0], failures: values[1], users: values[2]))
            }
            points.append(
                Point(
                    start: Date(timeIntervalSince1970: Double(bucket) * window), candidate: sides[0], stable: sides[1]))
        }
        return points
    }
}
