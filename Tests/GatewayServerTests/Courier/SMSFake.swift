import Foundation

/// A fake SMS provider on loopback (`Tests/Interop/sms_fake.py`) run as a child process: Twilio's
/// Messages API and the gateway's signed webhook, as documented, with faults and latency to
/// inject. What it accepts is read back from its folder.
struct SMSFake: Sendable {
    enum Mode: String, Sendable { case ok, unavailable, throttled, flaky }

    /// One message as the provider accepted it.
    struct Received: Sendable, Decodable, Equatable {
        let api: String
        let id: String
        let to: String
        let from: String
        let text: String
    }

    static let accountSid = "AC0123456789abcdef0123456789abcdef"
    static let authToken = "fake-twilio-auth-token-0001"

    let port: Int
    let folder: URL
    /// The base URL the tenant's settings name (Twilio's API root, or the webhook's URL + `/hook`).
    var url: String { "http://127.0.0.1:\(port)" }

    static func with<T: Sendable>(
        _ mode: Mode = .ok, delayMilliseconds: Int = 0, _ body: @Sendable (SMSFake) async throws -> T
    ) async throws -> T {
        try await RecordingServer.serving(
            "sms_fake.py", prefix: "sms", [accountSid, authToken, mode.rawValue, String(delayMilliseconds)]
        ) { port, folder in
            try await body(SMSFake(port: port, folder: folder))
        }
    }

    /// Every message accepted so far, in order.
    func received() throws -> [Received] { try RecordingServer.received(in: folder) }
}
