import Foundation

/// RFC 3339 date-times (ISO 8601 internet form), with or without fractional seconds:
/// `2026-11-22T10:00:00Z`, `2026-11-22T10:00:00.5+09:00`. One parser for every place that
/// reads dates from clients, files or flags.
public enum RFC3339 {
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let whole = Date.ISO8601FormatStyle()

    /// The date `text` names, or nil when it is not an RFC 3339 date-time.
    public static func date(from text: String) -> Date? {
        (try? fractional.parse(text)) ?? (try? whole.parse(text))
    }

    /// `date` as text, whole seconds, UTC (`2026-11-22T10:00:00Z`).
    public static func string(from date: Date) -> String {
        whole.format(date)
    }
}
