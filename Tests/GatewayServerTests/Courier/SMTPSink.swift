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
        try await RecordingServer.serving(
            "smtp_sink.py", prefix: "smtp", [mode.rawValue + (port.map { ":\($0)" } ?? "")] + (user.map { [$0.0, $0.1] } ?? [])
        ) { port, folder in
            try await body(SMTPSink(port: port, folder: folder))
        }
    }

    /// Every message received so far, in order.
    func received() throws -> [Received] { try RecordingServer.received(in: folder) }
}
