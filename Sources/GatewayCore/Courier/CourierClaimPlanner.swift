import Foundation

/// Decides, for leased outbox rows, which go out and which end at claim time (shared by both
/// engines, so they end messages alike): an expired code ends `expired`, a row whose sealed
/// part does not open (another master key) ends `failed`.
public enum CourierClaimPlanner {
    /// A leased row as either store read it.
    public struct Leased: Sendable {
        public var tenantID: String
        public var messageID: String
        public var channel: String
        public var purpose: String
        public var sealed: String
        public var attempts: Int
        public var createdAt: Date
        public var expiresAt: Date

        public init(
            tenantID: String, messageID: String, channel: String, purpose: String, sealed: String, attempts: Int,
            createdAt: Date, expiresAt: Date
        ) {
            self.tenantID = tenantID
            self.messageID = messageID
            self.channel = channel
            self.purpose = purpose
            self.sealed = sealed
            self.attempts = attempts
            self.createdAt = createdAt
            self.expiresAt = expiresAt
        }
    }

    /// The claimed messages, and the rows that end now with their state and reason.
    public static func plan(_ rows: [Leased], now: Date, sealer: SecretSealer) -> (
        claimed: [ClaimedCourierMessage], ended: [(Leased, CourierState, String)]
    ) {
        var claimed: [ClaimedCourierMessage] = []
        var ended: [(Leased, CourierState, String)] = []
        for row in rows {
            guard row.expiresAt > now else {
                let unheld = row.purpose.hasSuffix(JourneyCourier.unheldSuffix)
                ended.append((row, .expired, unheld ? "not sent: nobody holds the recipient" : "expired before it went out"))
                continue
            }
            let context = "courier:\(row.tenantID):\(row.messageID)"
            guard let channel = CourierMessage.Channel(rawValue: row.channel),
                let opened = try? sealer.open(row.sealed, context: context),
                let message = try? CourierMessage.stored(
                    tenantID: row.tenantID, id: row.messageID, channel: channel, purpose: row.purpose, opened: opened,
                    createdAt: row.createdAt, expiresAt: row.expiresAt)
            else {
                ended.append((row, .failed, "unreadable: sealed under another key"))
                continue
            }
            claimed.append(ClaimedCourierMessage(message: message, attempts: row.attempts))
        }
        return (claimed, ended)
    }
}
