import Foundation
import GatewayCore

/// JSON as gatewayctl reads and writes it: sorted keys, ISO 8601 dates with milliseconds.
enum JSONCoding {
    /// `2025-01-02T03:04:05.678Z` (``RFC3339/millisecondString(from:)``).
    static func format(_ date: Date) -> String { RFC3339.millisecondString(from: date) }

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
