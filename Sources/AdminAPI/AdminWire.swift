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
            guard let date = Self.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an RFC 3339 date-time: \(text)"))
            }
            return date
        }

        /// Any RFC 3339 date-time: `T`/`t`, `Z`/`z`, any fraction, any offset to ±23:59 (Foundation's
        /// ISO 8601 style refuses lower case and offsets past ±18 h, which RFC 3339 allows).
        static func parse(_ text: String) -> Date? {
            let b = Array(text.utf8)
            func number(_ range: Range<Int>) -> Int? {
                guard range.upperBound <= b.count, b[range].allSatisfy({ (48...57).contains($0) }) else { return nil }
                return b[range].reduce(0) { $0 * 10 + Int($1 - 48) }
            }
            guard b.count >= 20, b[4] == 45, b[7] == 45, [84, 116].contains(b[10]), b[13] == 58, b[16] == 58,
                let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
            else { return nil }
            var index = 19
            var fraction = 0.0
            if b[index] == 46 {
                var digits = 0
                var scale = 0.1
                index += 1
                while index < b.count, (48...57).contains(b[index]) {
                    fraction += Double(b[index] - 48) * scale
                    scale /= 10
                    digits += 1
                    index += 1
                }
                guard digits > 0 else { return nil }
            }
            var offset = 0
            if index == b.count - 1, [90, 122].contains(b[index]) {
                offset = 0
            } else if index == b.count - 6, [43, 45].contains(b[index]), b[index + 3] == 58,
                let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6), hours <= 23,
                minutes <= 59
            {
                offset = (hours * 60 + minutes) * 60 * (b[index] == 45 ? -1 : 1)
            } else {
                return nil
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            guard calendar.date(from: DateComponents(year: year, month: month, day: 1)).map({
                calendar.range(of: .day, in: .month, for: $0)?.contains(day) ?? false
            }) == true, let local = calendar.date(from: components)
            else { return nil }
            return local.addingTimeInterval(fraction - Double(offset))
        }
    }
}
