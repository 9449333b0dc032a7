import Foundation
import OpenAPIRuntime

/// How the admin API's JSON is written on both ends, the listener and gatewayctl's client
/// (hand-written beside the generated code): sorted keys, dates to the millisecond, so a
/// document that crossed the wire prints the same bytes as one read from the database.
/// (Foundation only: this module sits below GatewayCore; a test keeps these dates equal to
/// GatewayCore's `RFC3339.millisecondString`.)
public enum AdminWire {
    /// The generated server's and client's configuration.
    public static let configuration = Configuration(
        dateTranscoder: MillisecondDates(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    /// RFC 3339 with milliseconds out (rounded to the millisecond, whole numbers only); with
    /// or without fractional seconds in.
    public struct MillisecondDates: DateTranscoder {
        private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        private static let whole = Date.ISO8601FormatStyle()

        public init() {}

        public func encode(_ date: Date) throws -> String {
            let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
            let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
            let (wholeSeconds, millis) = fraction < 0 ? (seconds - 1, fraction + 1000) : (seconds, fraction)
            let text = Self.whole.format(Date(timeIntervalSince1970: Double(wholeSeconds)))
            return String(text.dropLast()) + "." + String(1000 + millis).dropFirst() + "Z"
        }

        public func decode(_ text: String) throws -> Date {
            guard let date = (try? Self.fractional.parse(text)) ?? (try? Self.whole.parse(text)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an RFC 3339 date-time: \(text)"))
            }
            return date
        }
    }
}
