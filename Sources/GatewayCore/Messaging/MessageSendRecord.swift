import Crypto
import Foundation

/// A send under an `Idempotency-Key`: what it came to, kept ``lifetime`` in the database (every
/// replica sees it), so a retry with the same key and body gets the first answer and delivers
/// nothing again, and a retry with another body is refused (``MessagingError/idempotencyConflict``).
public struct MessageSendRecord: Sendable, Equatable {
    /// How long a key is remembered.
    public static let lifetime: TimeInterval = 86_400

    public var tenantID: String
    public var senderID: String
    public var key: String
    /// The digest of what was asked (mini app, recipients, message).
    public var requestHash: String
    /// Each recipient's outcome, as answered.
    public var outcomes: [SentOutcome]
    public var createdAt: Date

    public init(
        tenantID: String, senderID: String, key: String, requestHash: String, outcomes: [SentOutcome], createdAt: Date
    ) {
        self.tenantID = tenantID
        self.senderID = senderID
        self.key = key
        self.requestHash = requestHash
        self.outcomes = outcomes
        self.createdAt = createdAt
    }

    /// One recipient's outcome of a send.
    public struct SentOutcome: Sendable, Equatable, Codable {
        public var id: String
        public var outcome: MessagingService.Outcome

        public init(id: String, outcome: MessagingService.Outcome) {
            self.id = id
            self.outcome = outcome
        }
    }

    /// The outcomes as stored (JSON).
    public static func document(_ outcomes: [SentOutcome]) throws -> String {
        String(decoding: try JSONEncoder().encode(outcomes), as: UTF8.self)
    }

    /// The outcomes of a stored document.
    public static func outcomes(_ document: String) throws -> [SentOutcome] {
        try JSONDecoder().decode([SentOutcome].self, from: Data(document.utf8))
    }

    /// The digest of a send request: the same mini app, recipients (in order) and message give
    /// the same digest.
    public static func hash(miniAppID: String, to ids: [String], content: MessageContent) throws -> String {
        struct Request: Encodable {
            var miniAppId: String
            var to: [String]
            var message: MessageContent
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Base64URL.encode(
            SHA256.hash(data: try encoder.encode(Request(miniAppId: miniAppID, to: ids, message: content))))
    }
}

/// Another send took the same `Idempotency-Key` first (concurrent retries): the store wrote
/// nothing of this one.
public struct MessageSendKeyTaken: Error, Sendable {
    public init() {}
}
