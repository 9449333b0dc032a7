import Foundation
import GatewayCore

/// JSON as gatewayctl reads and writes it: sorted keys, ISO 8601 dates with milliseconds.
enum JSONCoding {
    static let secondsStyle = Date.ISO8601FormatStyle()

    /// `2025-01-02T03:04:05.678Z`, milliseconds rounded (not truncated), so a date read
    /// back and rounded to the millisecond (as stores keep it) equals the original.
    static func format(_ date: Date) -> String {
        let milliseconds = StoreClock.milliseconds(date)
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let wholeSeconds = fraction < 0 ? seconds - 1 : seconds
        let whole = Date(timeIntervalSince1970: Double(wholeSeconds)).formatted(secondsStyle)
        let millis = fraction < 0 ? fraction + 1000 : fraction
        return String(whole.dropLast()) + "." + String(1000 + millis).dropFirst() + "Z"
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = RFC3339.date(from: text) { return date }
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected an ISO 8601 date, got \"\(text)\"")
        }
        return decoder
    }

    static func encodeString(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    /// A one-line description of a decoding failure: `tenants[1].platform.baseURL: ...`.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        let (path, detail): ([any CodingKey], String) =
            switch error {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
                (c.codingPath, c.debugDescription)
            case .keyNotFound(let key, let c): (c.codingPath + [key], "missing")
            @unknown default: ([], "\(error)")
            }
        let location = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        let trimmed = location.hasPrefix(".") ? String(location.dropFirst()) : location
        let oneLine = detail.replacingOccurrences(of: "\n", with: " ")
        return trimmed.isEmpty ? oneLine : "\(trimmed): \(oneLine)"
    }
}
