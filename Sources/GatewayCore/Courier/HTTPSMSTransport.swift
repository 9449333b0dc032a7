import AsyncHTTPClient
import Crypto
import Foundation

/// Sends SMS through a tenant's provider over HTTP (issue 63 §4):
/// - **twilio**: Twilio's Messages API, `POST {url}/2010-04-01/Accounts/{sid}/Messages.json`,
///   HTTP Basic with the account SID and auth token, form-encoded `To`, `From`, `Body`;
///   201 is sent, 429 and 5xx are retried, any other answer (Twilio's error JSON, its `code`
///   and `message` kept as the reason) is permanent;
/// - **webhook**: the tenant's own service, `POST {url}` with `{"id", "to", "from", "text"}`,
///   `X-Gateway-Timestamp` (Unix seconds) and `X-Gateway-Signature: v1=<hex HMAC-SHA256 of
///   "<timestamp>.<body>" under the auth token>`; 2xx is sent, 429 and 5xx are retried.
/// A timeout or a connection that fails is retried. The auth token never appears in a reason.
public struct HTTPSMSTransport: SMSTransport {
    private let http: ProviderHTTP
    private let clock: @Sendable () -> Date

    public init(client: HTTPClient, timeout: Duration = .seconds(10), clock: @escaping @Sendable () -> Date) {
        http = ProviderHTTP(client: client, timeout: timeout)
        self.clock = clock
    }

    public func send(text: String, to: String, via provider: SMSSettings, messageID: String) async throws {
        guard let token = provider.authToken?.plaintext else {
            throw CourierDeliveryError.permanent("not_configured: no auth token")
        }
        let base = provider.url.hasSuffix("/") ? String(provider.url.dropLast()) : provider.url
        let exchange: ProviderHTTP.Exchange
        do {
            switch provider.provider {
            case .twilio:
                let sid = provider.accountSid ?? ""
                let form = Self.formEncoded([("To", to), ("From", provider.from), ("Body", text)])
                exchange = try await http.post(
                    base + "/2010-04-01/Accounts/" + sid + "/Messages.json",
                    headers: [
                        ("Authorization", "Basic " + Data("\(sid):\(token)".utf8).base64EncodedString()),
                        ("Content-Type", "application/x-www-form-urlencoded"),
                    ], body: Array(form.utf8))
            case .webhook:
                let body = try JSONValue.object([
                    "id": .string(messageID), "to": .string(to), "from": .string(provider.from), "text": .string(text),
                ]).encoded()
                let stamp = String(Int(clock().timeIntervalSince1970))
                exchange = try await http.post(
                    base,
                    headers: [
                        ("Content-Type", "application/json"), ("X-Gateway-Timestamp", stamp),
                        ("X-Gateway-Signature", Self.signature(body: Array(body), timestamp: stamp, key: token)),
                    ], body: Array(body))
            }
        } catch let failure as ProviderHTTP.TransportFailure {
            throw CourierDeliveryError.transient(failure.reason)
        }
        try Self.judge(exchange, provider: provider.provider)
    }

    /// `v1=` and the hex HMAC-SHA256 of `<timestamp>.<body>` under `key` (the webhook's header).
    public static func signature(body: [UInt8], timestamp: String, key: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array(timestamp.utf8) + [UInt8(ascii: ".")] + body, using: SymmetricKey(data: Data(key.utf8)))
        return "v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// What an answer means: nothing thrown when sent.
    static func judge(_ exchange: ProviderHTTP.Exchange, provider: SMSSettings.Provider) throws {
        let status = exchange.status
        if provider == .twilio ? status == 200 || status == 201 : (200..<300).contains(status) { return }
        var reason = "status_\(status)"
        // Twilio's errors: {"code": 21211, "message": "The 'To' number … is not valid", …}.
        let twilioError = exchange.json
        if let number = twilioError?["code"]?.doubleValue.flatMap({ Int(exactly: $0) }) {
            reason += " code_\(number)"
            if let message = twilioError?["message"]?.stringValue { reason += ": " + String(message.prefix(160)) }
        }
        if status == 429 || status >= 500 { throw CourierDeliveryError.transient(reason) }
        throw CourierDeliveryError.permanent(reason)
    }

    /// `application/x-www-form-urlencoded` of `pairs` (RFC 3986 unreserved kept, the rest
    /// percent-encoded, spaces too).
    static func formEncoded(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(.init(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return pairs.map { name, value in
            name + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}
