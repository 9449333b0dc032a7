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

    /// `date` as text with milliseconds, UTC (`2025-01-02T03:04:05.678Z`), rounded (not
    /// truncated) in whole numbers, so a date read back and rounded to the millisecond (as
    /// stores keep it) equals the original: gatewayctl's JSON and the admin API's.
    public static func millisecondString(from date: Date) -> String {
        let milliseconds = StoreClock.milliseconds(date)
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let wholeSeconds = fraction < 0 ? seconds - 1 : seconds
        let text = whole.format(Date(timeIntervalSince1970: Double(wholeSeconds)))
        let millis = fraction < 0 ? fraction + 1000 : fraction
        return String(text.dropLast()) + "." + String(1000 + millis).dropFirst() + "Z"
    }
}
