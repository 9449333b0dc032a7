import CCurlSMTP
import Foundation
import GatewayCore
import NIOPosix

/// The courier's e-mail transport: one message per libcurl SMTP session (STARTTLS required
/// unless the relay is on loopback and says `off`, or `smtps://`; AUTH when the relay has a
/// user), run on NIO's blocking thread pool so no event loop or cooperative thread waits on a
/// relay. libcurl is the package the design names for mail; nothing here speaks SMTP itself.
public struct CurlSMTPTransport: MailTransport {
    /// The longest one message may take, connection included.
    public let timeout: Duration
    /// A CA bundle to trust instead of the system's (tests' throwaway CA); nil: the system's.
    public let caFile: String?

    public init(timeout: Duration = .seconds(30), caFile: String? = nil) {
        self.timeout = timeout
        self.caFile = caFile
    }

    public func send(_ message: MailMessage, via relay: SMTPRelay, messageID: String) async throws {
        if let problem = relay.problem ?? message.problem { throw CourierDeliveryError.permanent(problem) }
        let bytes = message.rendered(from: relay.from, messageID: messageID, date: Date())
        let tls: gw_smtp_tls =
            relay.implicitTLS ? GW_SMTP_TLS_IMPLICIT : relay.startTLS == .off ? GW_SMTP_TLS_OFF : GW_SMTP_TLS_STARTTLS
        let milliseconds = Int(timeout.components.seconds * 1000)
        let (caFile, recipient) = (self.caFile, message.to)
        let result = try await NIOThreadPool.singleton.runIfActive { () -> gw_smtp_result in
            // Every pointer lives for the whole (blocking) call: the closures below nest it.
            withOptionalCString(caFile) { ca in
                withOptionalCString(relay.username) { user in
                    withOptionalCString(relay.password?.plaintext) { password in
                        recipient.withCString { to in
                            var recipients: [UnsafePointer<CChar>?] = [to]
                            return recipients.withUnsafeMutableBufferPointer { list in
                                bytes.withUnsafeBufferPointer { body in
                                    body.baseAddress!.withMemoryRebound(to: CChar.self, capacity: body.count) { text in
                                        gw_smtp_send(
                                            relay.url, tls, ca, user, password, relay.from, list.baseAddress, 1,
                                            text, body.count, milliseconds)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard result.curl_code != 0 else { return }
        throw Self.classify(curlCode: result.curl_code, smtpCode: result.smtp_code, text: Self.text(of: result))
    }

    /// Whether a failure is worth a retry: the relay's 5xx, a refused login, TLS the relay
    /// lacks and certificates that do not verify are permanent; the rest (no connection, a
    /// timeout, a 4xx) transient.
    static func classify(curlCode: Int32, smtpCode: Int, text: String) -> CourierDeliveryError {
        let detail = "SMTP \(smtpCode == 0 ? "no reply" : String(smtpCode)): \(text)"
        if smtpCode >= 500 { return .permanent(detail) }
        if smtpCode >= 400 { return .transient(detail) }
        // CURLE_USE_SSL_FAILED, CURLE_LOGIN_DENIED, CURLE_PEER_FAILED_VERIFICATION,
        // CURLE_SSL_CACERT_BADFILE, CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL.
        if [64, 67, 60, 77, 3, 1].contains(curlCode) { return .permanent(detail) }
        return .transient(detail)
    }

    private static func text(of result: gw_smtp_result) -> String {
        withUnsafeBytes(of: result.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// `body` with `text` as a C string, or NULL.
private func withOptionalCString<T>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
