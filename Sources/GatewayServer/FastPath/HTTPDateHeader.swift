import Foundation
import Synchronization

/// The `Date` header's value (RFC 9110 IMF-fixdate), formatted once per second, as
/// Hummingbird's own date cache does for the responses it writes.
final class HTTPDateHeader: Sendable {
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))

    /// Now, e.g. `Thu, 26 Nov 2026 15:57:05 GMT`.
    func current() -> String {
        let second = time(nil)
        return cached.withLock { cached in
            if cached.second != second { cached = (second, Self.format(second)) }
            return cached.text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since 1970 as an IMF-fixdate.
    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
