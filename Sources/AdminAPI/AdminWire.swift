import Foundation
import GatewayCore
import OpenAPIRuntime

/// How the admin API's JSON is written on both ends, the listener and gatewayctl's client
/// (hand-written beside the generated code): sorted keys, dates to the millisecond, so a
/// document that crossed the wire prints the same bytes as one read from the database.
public enum AdminWire {
    /// The generated server's and client's configuration.
    public static let configuration = Configuration(
        dateTranscoder: MillisecondDates(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    /// RFC 3339 with milliseconds out; with or without fractional seconds in.
    struct MillisecondDates: DateTranscoder {
        func encode(_ date: Date) throws -> String { RFC3339.millisecondString(from: date) }

        func decode(_ text: String) throws -> Date {
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an RFC 3339 date-time: \(text)"))
            }
            return date
        }
    }
}
