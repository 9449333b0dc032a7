import Foundation

/// Stores keep times as integer milliseconds since 1970, so a `Date` read back from a
/// store compares equal to the one the store returned when writing.
package enum StoreClock {
    /// Now, truncated to the millisecond.
    package static func now() -> Date { date(milliseconds(Date())) }

    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    package static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
