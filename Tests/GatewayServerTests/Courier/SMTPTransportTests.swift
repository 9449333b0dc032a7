import Foundation
import GatewayCore
import GatewayServer
import Testing

/// The courier's e-mail transport (issue 63 §4) against a real SMTP server on loopback: libcurl
/// with STARTTLS and AUTH, the message as a mail reader decodes it, and failures sorted into
/// worth a retry or not.
@Suite("SMTP through libcurl", .enabled(if: SMTPSink.available, "python3 with aiosmtpd is not installed (make test installs it)"))
struct SMTPTransportTests {
    static let message = MailMessage(
        to: "nina@example.com", subject: "Your code: 123456 – コード", text: "Your code is 123456.\nコードは123456です。")

    /// The body and subject as a reader decodes them.
    static func decoded(_ data: String) throws -> (subject: String, body: String, headers: String) {
        let parts = data.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
        try #require(parts.count >= 2, "no blank line between headers and body: \(data)")
        let headers = parts[0]
        let words = headers.components(separatedBy: "=?UTF-8?B?").dropFirst().map { $0.components(separatedBy: "?=")[0] }
        let subject = words.map { $0.replacingOccurrences(of: "\n ", with: "") }.compactMap { Data(base64Encoded: $0).map { String(decoding: $0, as: UTF8.self) } }.joined()
        let body = try #require(Data(base64Encoded: parts[1].replacingOccurrences(of: "\n", with: "")))
        return (subject, String(decoding: body, as: UTF8.self), headers)
    }

    @Test("STARTTLS required with AUTH: the message arrives once, its subject and body in UTF-8")
    func startTLSWithAuth() async throws {
        try await SMTPSink.with(.starttls, user: ("mailer", "relay-secret")) { sink in
            let relay = SMTPRelay(
                url: "smtp://127.0.0.1:\(sink.port)", from: "no-reply@acme.example", username: "mailer",
                password: SecretValue("relay-secret"))
            try await CurlSMTPTransport(caFile: sink.caFile).send(Self.message, via: relay, messageID: "m-1")
            let received = try sink.received()
            #expect(received.count == 1)
            let mail = try #require(received.first)
            #expect(mail.from == "no-reply@acme.example" && mail.to == ["nina@example.com"])
            let (subject, body, headers) = try Self.decoded(mail.data)
            #expect(subject == Self.message.subject && body == Self.message.text)
            #expect(headers.contains("Message-ID: <m-1@acme.example>") && headers.contains("To: nina@example.com"))
        }
    }

    @Test("refused: a wrong password, a CA that does not sign the relay, a relay without STARTTLS (permanent); a relay down (transient)")
    func failuresSorted() async throws {
        try await SMTPSink.with(.starttls, user: ("mailer", "relay-secret")) { sink in
            let wrong = SMTPRelay(
                url: "smtp://127.0.0.1:\(sink.port)", from: "no-reply@acme.example", username: "mailer",
                password: SecretValue("not-it"))
            do {
                try await CurlSMTPTransport(caFile: sink.caFile).send(Self.message, via: wrong, messageID: "m-2")
            } catch CourierDeliveryError.permanent {
            } catch { Issue.record("a refused login is not permanent: \(error)") }
            // The system's trust store does not know the throwaway CA.
            let right = SMTPRelay(
                url: "smtp://127.0.0.1:\(sink.port)", from: "no-reply@acme.example", username: "mailer",
                password: SecretValue("relay-secret"))
            do {
                try await CurlSMTPTransport().send(Self.message, via: right, messageID: "m-3")
                Issue.record("an unverified certificate was accepted")
            } catch CourierDeliveryError.permanent {}
            #expect(try sink.received().isEmpty)
        }
        try await SMTPSink.with(.plain) { sink in
            // A relay that offers no STARTTLS gets nothing when it is required.
            let required = SMTPRelay(url: "smtp://127.0.0.1:\(sink.port)", from: "no-reply@acme.example")
            do {
                try await CurlSMTPTransport().send(Self.message, via: required, messageID: "m-4")
                Issue.record("mail went out without TLS")
            } catch CourierDeliveryError.permanent {}
            #expect(try sink.received().isEmpty)
            // `off` on loopback: plain SMTP, delivered.
            let plain = SMTPRelay(url: "smtp://127.0.0.1:\(sink.port)", from: "no-reply@acme.example", startTLS: .off)
            try await CurlSMTPTransport().send(Self.message, via: plain, messageID: "m-5")
            #expect(try sink.received().count == 1)
        }
        let port = try await SMTPSink.with(.plain) { $0.port }
        let gone = SMTPRelay(url: "smtp://127.0.0.1:\(port)", from: "no-reply@acme.example", startTLS: .off)
        do {
            try await CurlSMTPTransport(timeout: .seconds(5)).send(Self.message, via: gone, messageID: "m-6")
            Issue.record("a relay that is down took the message")
        } catch CourierDeliveryError.transient {}
    }

    @Test("a recipient the relay refuses with 5xx is permanent; settings that cannot work are refused before any connection")
    func refusedRecipientAndSettings() async throws {
        try await SMTPSink.with(.reject) { sink in
            let relay = SMTPRelay(url: "smtp://127.0.0.1:\(sink.port)", from: "no-reply@acme.example", startTLS: .off)
            do {
                try await CurlSMTPTransport().send(Self.message, via: relay, messageID: "m-7")
                Issue.record("a refused recipient was taken")
            } catch CourierDeliveryError.permanent(let detail) { #expect(detail.contains("550")) }
        }
        #expect(SMTPRelay(url: "smtp://mail.example.com", from: "a@b.example", startTLS: .off).problem != nil)
        #expect(SMTPRelay(url: "http://mail.example.com", from: "a@b.example").problem != nil)
        #expect(SMTPRelay(url: "smtps://mail.example.com:465", from: "a@b.example").problem == nil)
        #expect(SMTPRelay(url: "smtp://mail.example.com:587", from: "a@b.example\r\nBcc: x@y.example").problem != nil)
        #expect(MailMessage(to: "x@y.example", subject: "a\r\nBcc: z@evil.example", text: "").problem != nil)
        #expect(MailMessage(to: "x@y.example>\r\nRCPT TO:<z@evil.example", subject: "s", text: "").problem != nil)
    }
}
