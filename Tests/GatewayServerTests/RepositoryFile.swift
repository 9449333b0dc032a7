import Foundation
import Yams

/// Files of this repository, found from this source file's location.
enum RepositoryFile {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: url(relativePath), encoding: .utf8)
    }

    /// `OpenAPI/gateway.yaml`, parsed.
    static func contract() throws -> [String: Any] {
        guard let document = try Yams.load(yaml: text("OpenAPI/gateway.yaml")) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url("OpenAPI/gateway.yaml").path])
        }
        return document
    }
}
