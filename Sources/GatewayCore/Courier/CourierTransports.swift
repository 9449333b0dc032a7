/// Why a message was not delivered, as the courier's retry decides on it.
public enum CourierDeliveryError: Error, Sendable, Equatable {
    /// Try again later: the relay or provider unreachable or busy, a timeout, a 4xx (SMTP) or
    /// 429/5xx (HTTP) answer.
    case transient(String)
    /// Retrying will not help: a 5xx (SMTP) or 4xx (HTTP) answer, a refused login, TLS the relay
    /// does not offer or a certificate that does not verify.
    case permanent(String)
}

/// Sends e-mail through a relay (the courier's seam; libcurl in GatewayServer).
public protocol MailTransport: Sendable {
    /// Sends `message` through `relay`, its id in `Message-ID`. Throws ``CourierDeliveryError``.
    func send(_ message: MailMessage, via relay: SMTPRelay, messageID: String) async throws
}

/// Sends SMS through a provider (the courier's seam).
public protocol SMSTransport: Sendable {
    /// Sends `text` to `to` (E.164) through `provider`, `messageID` as the provider's reference.
    /// Throws ``CourierDeliveryError``.
    func send(text: String, to: String, via provider: SMSSettings, messageID: String) async throws
}
