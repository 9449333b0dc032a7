import Foundation

/// A real SMTP server on loopback (`Tests/Interop/smtp_sink.py`, aiosmtpd) run as a child
/// process: plain, STARTTLS required (with a throwaway CA), or refusing every recipient; with
/// AUTH when given a user. What it receives is read back from its folder.
struct SMTPSink: Sendable {
    enum Mode: String, Sendable { case plain, starttls, reject }

    /// One message as the server received it.
    struct Received: Sendable, Decodable {
        let from: String
        let to: [String]
        let data: String
    }

    static var available: Bool { PythonScript.canImport("aiosmtpd, cryptography") }

    let port: Int
    let folder: URL
    var caFile: String { folder.appendingPathComponent("ca.pem").path }

    /// - Parameter port: where to listen (nil: a free port), so a relay can come back where it was.
    static func with<T: Sendable>(
        _ mode: Mode, user: (String, String)? = nil, port: Int? = nil, _ body: @Sendable (SMTPSink) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await PythonScript.serving(
            "smtp_sink.py", [folder.path, mode.rawValue + (port.map { ":\($0)" } ?? "")] + (user.map { [$0.0, $0.1] } ?? [])
        ) { started in
            try await body(SMTPSink(port: try started.get(), folder: folder))
        }
    }

    /// Every message received so far, in order.
    func received() throws -> [Received] {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("received.jsonl"), encoding: .utf8)
        else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Received.self, from: Data($0.utf8)) }
    }
}
