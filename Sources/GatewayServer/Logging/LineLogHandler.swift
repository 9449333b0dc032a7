import Foundation
import Logging

/// One line per event on stderr, as `log.format` asks:
/// - `json`: an object with `ts`, `level`, `label`, `msg` and the metadata (for log shippers);
/// - `text`: `time level label: key=value [source] message`, as swift-log's
///   `StreamLogHandler` writes it.
///
/// Metadata is rendered only when a line is written: `StreamLogHandler` re-renders on
/// every metadata change, and the server tags each request's logger, so that cost was
/// paid per request even with nothing logged.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let format: GatewayConfiguration.LogFormat

    /// - Parameter replica: when set, every line carries it as `replica` (which replica of a
    ///   cluster wrote the line).
    public init(label: String, level: Logger.Level, format: GatewayConfiguration.LogFormat, replica: String? = nil) {
        self.label = label
        self.logLevel = level
        self.format = format
        if let replica { self.metadata["replica"] = .string(replica) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let timestamp = Date().formatted(.iso8601)
        let line: Data? = switch format {
        case .json: json(event, merged, timestamp: timestamp)
        case .text: text(event, merged, timestamp: timestamp)
        }
        guard var line else { return }
        line.append(UInt8(ascii: "\n"))
        FileHandle.standardError.write(line)
    }

    private func text(_ event: LogEvent, _ metadata: Logger.Metadata, timestamp: String) -> Data {
        let rendered =
            metadata.isEmpty
            ? "" : " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return Data("\(timestamp) \(event.level) \(label):\(rendered) [\(event.source)] \(event.message)".utf8)
    }

    private func json(_ event: LogEvent, _ metadata: Logger.Metadata, timestamp: String) -> Data? {
        var object: [String: Any] = [
            "ts": timestamp,
            "level": event.level.rawValue,
            "label": label,
            "msg": event.message.description,
        ]
        for (key, value) in metadata { object[key] = Self.json(value) }
        return try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let array): array.map(json)
        case .dictionary(let dictionary): dictionary.mapValues(json)
        }
    }
}
