import AsyncHTTPClient
import Foundation
import GatewayCore
import Testing

/// The courier's SMS transport (issue 63 §4) against a fake provider that follows Twilio's
/// Messages API and the gateway's signed webhook: what arrives, and failures sorted into worth
/// a retry or not.
@Suite("SMS through a provider's HTTP API")
struct SMSTransportTests {
    static let text = "Your Acme code is 123456. コード: 123456 (a+b&c=d%)"

    static func twilio(_ fake: SMSFake, token: String = SMSFake.authToken) -> SMSSettings {
        SMSSettings(
            provider: .twilio, url: fake.url, accountSid: SMSFake.accountSid, authToken: SecretValue(token),
            from: "+15005550006", allowedCountries: ["81"])
    }

    static func webhook(_ fake: SMSFake, token: String = SMSFake.authToken) -> SMSSettings {
        SMSSettings(
            provider: .webhook, url: fake.url + "/hook", authToken: SecretValue(token), from: "Acme",
            allowedCountries: ["81"])
    }

    static func sending<T>(
        timeout: Duration = .seconds(5), _ body: (HTTPSMSTransport) async throws -> T
    ) async throws -> T {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let result = try await body(HTTPSMSTransport(client: client, timeout: timeout, clock: { Date() }))
            try await client.shutdown()
            return result
        } catch {
            try await client.shutdown()
            throw error
        }
    }

    @Test("Twilio's Messages API and the signed webhook each get the message once, in UTF-8")
    func delivered() async throws {
        try await SMSFake.with { fake in
            try await Self.sending { sms in
                try await sms.send(text: Self.text, to: "+819012345678", via: Self.twilio(fake), messageID: "cm_1")
                try await sms.send(text: Self.text, to: "+819012345679", via: Self.webhook(fake), messageID: "cm_2")
            }
            #expect(
                try fake.received().map { [$0.api, $0.to, $0.from, $0.text] } == [
                    ["twilio", "+819012345678", "+15005550006", Self.text],
                    ["webhook", "+819012345679", "Acme", Self.text],
                ])
            #expect(try fake.received().last?.id == "cm_2")
        }
    }

    @Test("refused for good: a wrong token (both APIs), a number Twilio rejects; the token is in no reason")
    func permanentFailures() async throws {
        try await SMSFake.with { fake in
            try await Self.sending { sms in
                for (settings, to) in [
                    (Self.twilio(fake, token: "not-the-right-token-x"), "+819012345678"),
                    (Self.webhook(fake, token: "not-the-right-token-x"), "+819012345678"),
                    (Self.twilio(fake), "+81"),
                ] {
                    do {
                        try await sms.send(text: Self.text, to: to, via: settings, messageID: "cm_3")
                        Issue.record("\(settings.provider) took a message it should refuse")
                    } catch CourierDeliveryError.permanent(let reason) {
                        #expect(!reason.contains("not-the-right-token") && !reason.contains(SMSFake.authToken))
                        if to == "+81" { #expect(reason.hasPrefix("status_400 code_21211")) }
                    }
                }
            }
            #expect(try fake.received().isEmpty)
        }
    }

    @Test("worth a retry: 503 and 429 from the provider, a provider too slow, one that is down")
    func transientFailures() async throws {
        for mode in [SMSFake.Mode.unavailable, .throttled] {
            try await SMSFake.with(mode) { fake in
                try await Self.sending { sms in
                    _ = await #expect(throws: CourierDeliveryError.self) {
                        do {
                            try await sms.send(text: Self.text, to: "+819012345678", via: Self.twilio(fake), messageID: "m")
                        } catch CourierDeliveryError.transient(let reason) {
                            #expect(reason.hasPrefix(mode == .unavailable ? "status_503" : "status_429"))
                            throw CourierDeliveryError.transient(reason)
                        }
                    }
                }
            }
        }
        let port = try await SMSFake.with { $0.port }
        let gone = SMSSettings(
            provider: .webhook, url: "http://127.0.0.1:\(port)/hook", authToken: SecretValue(SMSFake.authToken),
            from: "Acme", allowedCountries: ["81"])
        try await Self.sending { sms in
            do {
                try await sms.send(text: Self.text, to: "+819012345678", via: gone, messageID: "m")
                Issue.record("a provider that is down took the message")
            } catch CourierDeliveryError.transient {}
        }
        try await SMSFake.with(delayMilliseconds: 1_500) { fake in
            try await Self.sending(timeout: .milliseconds(300)) { sms in
                do {
                    try await sms.send(text: Self.text, to: "+819012345678", via: Self.twilio(fake), messageID: "m")
                    Issue.record("a provider past the timeout was waited for")
                } catch CourierDeliveryError.transient(let reason) {
                    #expect(reason == "timeout")
                }
            }
        }
    }

    @Test("the webhook signature is HMAC-SHA256 over timestamp and body, as docs/journeys.md says")
    func signatureVector() {
        // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac key
        #expect(
            HTTPSMSTransport.signature(body: Array(#"{"a":1}"#.utf8), timestamp: "1700000000", key: "key")
                == "v1=a438e398bfafc57e4396bb7fc2304422f0f768e965d073ca313cb52e22e6ad03")
        // The example in docs/journeys.md.
        let body = #"{"from":"Acme","id":"cm_Qm9vdHN0cmFw","text":"123456 is your Acme code.","to":"+819012345678"}"#
        #expect(
            HTTPSMSTransport.signature(body: Array(body.utf8), timestamp: "1764860400", key: "webhook-key-0123456789")
                == "v1=adaea0dadd4081cd6b9dbdb79fbb90cd8ce5214918056397855ee1c1f7681813")
    }
}
