import Foundation

/// A message between users, as the SDKs' `MessageToContact`: text, an image, its caption,
/// an action URL and the banner the host app shows while sending.
public struct MessageContent: Sendable, Equatable, Codable {
    public var text: String
    public var image: String?
    public var caption: String?
    public var action: String?
    public var bannerMessage: String?

    public init(text: String, image: String? = nil, caption: String? = nil, action: String? = nil, bannerMessage: String? = nil) {
        self.text = text
        self.image = image
        self.caption = caption
        self.action = action
        self.bannerMessage = bannerMessage
    }
}

/// What a message must satisfy before it is sent.
public enum MessageRules {
    /// Recipients per call (the SDK's `sendMessageToMultipleContacts` list).
    public static let maxRecipients = 100
    /// Lengths in characters (code points, as the contract's JSON Schema counts).
    public static let maxText = 4_000, maxCaption = 1_000, maxBanner = 256
    /// URL length in bytes.
    public static let maxURL = 2_048

    /// Throws ``MessagingError/invalidMessage(_:)`` naming the first rule broken.
    public static func check(_ content: MessageContent, to recipients: [String]) throws(MessagingError) {
        func fail(_ text: String) throws(MessagingError) -> Never { throw .invalidMessage(text) }
        if recipients.isEmpty || recipients.count > maxRecipients { try fail("`to` holds 1-\(maxRecipients) contact ids") }
        if let bad = recipients.first(where: { !ReleasePolicyRules.isUserID($0) }) {
            try fail("malformed contact id \"\(bad.prefix(80))\" in `to`")
        }
        if content.text.isEmpty || content.text.unicodeScalars.count > maxText { try fail("text is 1-\(maxText) characters") }
        if let caption = content.caption, caption.unicodeScalars.count > maxCaption {
            try fail("caption is at most \(maxCaption) characters")
        }
        if let banner = content.bannerMessage, banner.unicodeScalars.count > maxBanner {
            try fail("bannerMessage is at most \(maxBanner) characters")
        }
        for (name, url) in [("image", content.image), ("action", content.action)] {
            guard let url else { continue }
            guard url.utf8.count <= maxURL, let parts = URLComponents(string: url), parts.scheme?.lowercased() == "https",
                let host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil
            else { try fail("\(name) must be an https URL with a host (at most \(maxURL) bytes, no user info)") }
        }
    }
}

/// One message in a user's inbox.
public struct InboxItem: Sendable, Equatable {
    public var id: String
    public var senderID: String
    /// The name the recipient gave the sender in their contacts, else the sender's profile name.
    public var senderName: String?
    public var miniAppID: String
    public var content: MessageContent
    public var read: Bool
    public var createdAt: Date

    public init(
        id: String, senderID: String, senderName: String?, miniAppID: String, content: MessageContent, read: Bool,
        createdAt: Date
    ) {
        self.id = id
        self.senderID = senderID
        self.senderName = senderName
        self.miniAppID = miniAppID
        self.content = content
        self.read = read
        self.createdAt = createdAt
    }
}

/// One page of an inbox, newest first.
public struct InboxPage: Sendable, Equatable {
    public var items: [InboxItem]
    /// Unread messages in the whole inbox.
    public var unread: Int
    /// Where the next page starts (nil: this is the last).
    public var next: InboxCursor?

    public init(items: [InboxItem], unread: Int, next: InboxCursor?) {
        self.items = items
        self.unread = unread
        self.next = next
    }
}

/// A position in an inbox: messages older than the one with this sequence number. Stable
/// under concurrent inserts (new messages get higher numbers, so they never shift a page).
public struct InboxCursor: Sendable, Equatable {
    public var before: Int64

    public init(before: Int64) {
        self.before = before
    }

    /// The form clients pass back: the position in decimal, so every value the contract allows
    /// (`^[1-9][0-9]{0,17}$`) is a cursor that pages on from there.
    public var token: String { String(before) }

    /// The cursor of `token`: decimal, or the base64url form of earlier releases; nil otherwise.
    public init?(token: String) {
        let text: String
        if token.utf8.allSatisfy(ASCIIByte.isDigit) {
            text = token
        } else {
            guard token.utf8.count <= 32, let data = Base64URL.decode(token),
                let decoded = String(data: data, encoding: .utf8), decoded.first == "i"
            else { return nil }
            text = String(decoded.dropFirst())
        }
        guard text.utf8.count <= 18, let value = Int64(text), value > 0 else { return nil }
        before = value
    }
}
