import Foundation

/// One message the courier sends to a person (issue 63 §4): a code by e-mail or by SMS. It
/// waits in the tenant database's courier outbox (beside push's) until a worker hands it to the
/// tenant's relay or provider; its recipient and text are sealed there.
public struct CourierMessage: Sendable, Equatable, Codable {
    /// How it goes out.
    public enum Channel: String, Sendable, Codable, CaseIterable {
        case email, sms
    }

    public var tenantID: String
    /// Unique in the tenant; an e-mail's `Message-ID` is built from it.
    public var id: String
    public var channel: Channel
    /// What it is for (`verify-email`, `sign-in`, `recovery`): the operators' list and metrics.
    public var purpose: String
    /// An e-mail address, or an E.164 number.
    public var to: String
    /// The e-mail's subject (empty for SMS).
    public var subject: String
    public var text: String
    public var createdAt: Date
    /// After this it is not worth sending (its code expired): it ends `expired`.
    public var expiresAt: Date

    public init(
        tenantID: String, id: String, channel: Channel, purpose: String, to: String, subject: String = "",
        text: String, createdAt: Date, expiresAt: Date
    ) {
        self.tenantID = tenantID
        self.id = id
        self.channel = channel
        self.purpose = purpose
        self.to = to
        self.subject = subject
        self.text = text
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// The recipient as operators see it: `k…@acme.example`, `+81…5678`.
    public var maskedRecipient: String { Self.masked(to, channel: channel) }

    /// `recipient` of `channel` masked: the first character and the domain of an address, the
    /// country prefix and the last four digits of a number.
    public static func masked(_ recipient: String, channel: Channel) -> String {
        switch channel {
        case .email:
            let parts = recipient.split(separator: "@", maxSplits: 1)
            guard parts.count == 2, let first = parts[0].first else { return "…" }
            return "\(first)…@\(parts[1])"
        case .sms:
            guard recipient.count > 7 else { return "…" }
            return String(recipient.prefix(3)) + "…" + String(recipient.suffix(4))
        }
    }

    /// The context the stored copy is sealed under: one message of one tenant.
    public var sealingContext: String { "courier:\(tenantID):\(id)" }

    /// The parts sealed at rest (recipient, subject, text), as JSON.
    public func sealedPart() throws -> String {
        String(decoding: try JSONEncoder().encode(Sealed(to: to, subject: subject, text: text)), as: UTF8.self)
    }

    /// The message rebuilt from its row and its opened sealed part.
    public static func stored(
        tenantID: String, id: String, channel: Channel, purpose: String, opened: String, createdAt: Date,
        expiresAt: Date
    ) throws -> CourierMessage {
        let sealed = try JSONDecoder().decode(Sealed.self, from: Data(opened.utf8))
        return CourierMessage(
            tenantID: tenantID, id: id, channel: channel, purpose: purpose, to: sealed.to, subject: sealed.subject,
            text: sealed.text, createdAt: createdAt, expiresAt: expiresAt)
    }

    private struct Sealed: Codable {
        var to: String
        var subject: String
        var text: String
    }
}

/// Where a courier message stands.
public enum CourierState: String, Sendable, Codable, CaseIterable {
    /// Waiting for (or between) attempts.
    case pending
    /// The relay or provider accepted it.
    case sent
    /// Refused for good, or retries ran out: the dead letter.
    case failed
    /// Its code expired before it could go out.
    case expired
}
