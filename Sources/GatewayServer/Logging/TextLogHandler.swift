import Foundation
import Logging

/// Human-readable lines on stderr, as swift-log's `StreamLogHandler` writes them
/// (`time level label: key=value [source] message`), but rendering metadata only when a
/// line is written: `StreamLogHandler` re-renders on every metadata change, and the
/// server tags each request's logger, so that cost was paid per request even with
/// nothing logged. Used when `log.format=text`.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let rendered = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = Date().formatted(.iso8601)
        FileHandle.standardError.write(Data("\(time) \(event.level) \(label):\(rendered) [\(event.source)] \(event.message)\n".utf8))
    }
}
