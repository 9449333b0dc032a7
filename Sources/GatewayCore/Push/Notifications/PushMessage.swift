import Foundation

/// Who a message goes to: named users, or every user who allows notifications from the mini app.
public enum PushRecipients: Sendable, Equatable, Codable {
    case users([String])
    case allConsented
}

/// A notification's title and body in one language.
public struct PushText: Sendable, Equatable, Codable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }
}

/// How urgently the providers should deliver.
public enum PushPriority: String, Sendable, Equatable, Codable, CaseIterable {
    case high, normal
}

/// What a sender asks to send: the mini app, the recipients and the notification.
public struct PushContent: Sendable, Equatable, Codable {
    public var miniAppID: String
    public var recipients: PushRecipients
    /// Texts by BCP 47 tag; `default` is required and used when no tag matches a device.
    public var texts: [String: PushText]
    /// The data payload (a JSON object, at most ``NotificationRules/maxDataBytes`` encoded).
    public var data: JSONValue?
    /// A deep link on one of the tenant's link domains.
    public var link: String?
    public var collapseID: String?
    public var ttlSeconds: Int
    public var priority: PushPriority

    public init(
        miniAppID: String, recipients: PushRecipients, texts: [String: PushText], data: JSONValue? = nil,
        link: String? = nil, collapseID: String? = nil, ttlSeconds: Int = NotificationRules.defaultTTLSeconds,
        priority: PushPriority = .normal
    ) {
        self.miniAppID = miniAppID
        self.recipients = recipients
        self.texts = texts
        self.data = data
        self.link = link
        self.collapseID = collapseID
        self.ttlSeconds = ttlSeconds
        self.priority = priority
    }
}

/// A notification a sender asked for, as stored in the outbox.
public struct PushMessage: Sendable, Equatable, Codable {
    /// The gateway's id (`msg_` + random); it travels as the providers' collapse id when the
    /// sender gives none, so a repeated delivery replaces rather than adds.
    public var id: String
    public var tenantID: String
    /// The sender (client id).
    public var clientID: String
    public var content: PushContent
    public var createdAt: Date

    public init(id: String, tenantID: String, clientID: String, content: PushContent, createdAt: Date) {
        self.id = id
        self.tenantID = tenantID
        self.clientID = clientID
        self.content = content
        self.createdAt = createdAt
    }

    public var miniAppID: String { content.miniAppID }
    /// When undelivered copies expire.
    public var expiresAt: Date { createdAt.addingTimeInterval(TimeInterval(content.ttlSeconds)) }
}
