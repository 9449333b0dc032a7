import Foundation

/// A loopback fake that records what it receives (`Tests/Interop/smtp_sink.py`,
/// `sms_fake.py`): run with a fresh folder of its own, removed afterwards, where it writes one
/// JSON line per message to `received.jsonl`.
enum RecordingServer {
    /// Runs `script` with its folder as the first argument, then `arguments`; `body` gets the
    /// port it listens on and the folder.
    static func serving<T>(
        _ script: String, prefix: String, _ arguments: [String], _ body: (Int, URL) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await PythonScript.serving(script, [folder.path] + arguments) { started in
            try await body(try started.get(), folder)
        }
    }

    /// Every record in `folder` so far, in order.
    static func received<Record: Decodable>(in folder: URL, as _: Record.Type = Record.self) throws -> [Record] {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("received.jsonl"), encoding: .utf8)
        else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }
}
