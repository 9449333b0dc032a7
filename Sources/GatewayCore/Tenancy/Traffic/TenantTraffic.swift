import Foundation
import Synchronization

/// Each tenant's traffic as every replica sees it (the console's overview, issue 49): answered
/// requests, server errors (5xx) and a latency histogram, per tenant and 10-minute window.
///
/// A replica counts in memory (a lock and a dictionary update per request, bounded by the
/// tenants that exist times the windows not yet flushed) and adds its counts to shared counters
/// in the cache every few seconds (``flush(to:)``), so the hot path never waits on Redis. The
/// overview reads the last hour of the tenants it lists in one multi-key read (``summaries``).
public final class TenantTraffic: Sendable {
    /// Window length, as the release health counters'.
    public static let window: TimeInterval = 600
    /// Windows the overview reads: the last hour.
    public static let hourWindows = 6
    /// Upper bounds of the latency buckets, milliseconds; one more bucket holds the rest.
    public static let bounds: [Double] = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500]
    /// How long the shared counters live: the hour the overview reads and one window more.
    public static let lifetime: Duration = .seconds(Int(window) * (hourWindows + 1))

    /// One window's counts of one tenant.
    public struct Tally: Sendable, Equatable {
        public var requests: Int64 = 0
        public var errors: Int64 = 0
        public var buckets = [Int64](repeating: 0, count: TenantTraffic.bounds.count + 1)

        public init() {}
    }

    /// The last hour of one tenant.
    public struct Summary: Sendable, Equatable {
        public var requests: Int64
        public var errors: Int64
        /// Requests per minute over the hour.
        public var perMinute: Double { Double(requests) / 60 }
        /// Share of 5xx answers, 0-1 (nil without requests).
        public var errorShare: Double? { requests > 0 ? Double(errors) / Double(requests) : nil }
        /// The bucket bound 95 % of the hour's requests were answered within, milliseconds
        /// (nil without requests; `.infinity` past the last bound).
        public var p95: Double?
    }

    private struct Key: Hashable {
        var tenant: String
        var window: Int64
    }

    private let pending = Mutex<[Key: Tally]>([:])

    public init() {}

    /// Counts one answered request of `tenant` (a tenant that exists: the caller checks).
    public func record(tenant: String, status: Int, milliseconds: Double, at now: Date) {
        let key = Key(tenant: tenant, window: Self.windowIndex(now))
        let bucket = Self.bounds.firstIndex { milliseconds <= $0 } ?? Self.bounds.count
        pending.withLock { pending in
            pending[key, default: Tally()].requests += 1
            if status >= 500 { pending[key, default: Tally()].errors += 1 }
            pending[key, default: Tally()].buckets[bucket] += 1
        }
    }

    /// Adds what this replica counted since the last flush to the shared counters. Counts that
    /// cannot be written (the cache out of reach) are dropped: these are figures for a page,
    /// never worth holding a request or growing without bound.
    public func flush(to cache: any Cache) async {
        let drained = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        for (key, tally) in drained {
            let fields =
                [("r", tally.requests), ("e", tally.errors)]
                + tally.buckets.enumerated().map { ("h\($0.offset)", $0.element) }
            for (field, value) in fields where value > 0 {
                _ = try? await cache.increment(
                    Self.key(key.tenant, window: key.window, field: field), by: value, ttl: Self.lifetime)
            }
        }
    }

    /// The last hour of each of `tenants`, from the shared counters, in one multi-key read.
    public static func summaries(_ cache: any Cache, tenants: [String], now: Date) async throws -> [String: Summary] {
        let current = windowIndex(now)
        let windows = (0..<Int64(hourWindows)).map { current - $0 }
        let fields = ["r", "e"] + bounds.indices.map { "h\($0)" } + ["h\(bounds.count)"]
        let keys = tenants.flatMap { tenant in
            windows.flatMap { window in fields.map { key(tenant, window: window, field: $0) } }
        }
        let values = try await cache.getMany(keys)
        var result: [String: Summary] = [:]
        var index = 0
        for tenant in tenants {
            var tally = Tally()
            for _ in windows {
                for field in fields {
                    let value = values[index].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0
                    index += 1
                    switch field {
                    case "r": tally.requests += value
                    case "e": tally.errors += value
                    default: tally.buckets[Int(field.dropFirst())!] += value
                    }
                }
            }
            result[tenant] = Summary(requests: tally.requests, errors: tally.errors, p95: p95(tally))
        }
        return result
    }

    /// The bound of the bucket the 95th percentile falls in.
    static func p95(_ tally: Tally) -> Double? {
        let total = tally.buckets.reduce(0, +)
        guard total > 0 else { return nil }
        let wanted = (Double(total) * 0.95).rounded(.up)
        var seen: Int64 = 0
        for (index, count) in tally.buckets.enumerated() {
            seen += count
            if Double(seen) >= wanted { return index < bounds.count ? bounds[index] : .infinity }
        }
        return .infinity
    }

    static func windowIndex(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / window).rounded(.down)) }

    static func key(_ tenant: String, window: Int64, field: String) -> String {
        "traffic:\(tenant):\(window):\(field)"
    }
}
