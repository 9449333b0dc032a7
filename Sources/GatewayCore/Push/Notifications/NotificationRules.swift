import Foundation

/// What a notification must satisfy before it is queued.
public enum NotificationRules {
    /// Named recipients per call.
    public static let maxRecipients = 1_000
    /// The data payload, encoded.
    public static let maxDataBytes = 4_096
    /// Title and body lengths (characters).
    public static let maxTitle = 256, maxBody = 4_000
    /// Texts per message.
    public static let maxLanguages = 50
    /// APNs and FCM keep undelivered messages up to 28 days.
    public static let maxTTLSeconds = 2_419_200
    public static let defaultTTLSeconds = 86_400

    /// Throws ``NotificationError/invalid(_:)`` naming the first rule `message` breaks.
    /// - Parameter linkHosts: the tenant's link domains.
    public static func check(_ message: PushContent, linkHosts: Set<String>) throws(NotificationError) {
        func fail(_ text: String) throws(NotificationError) -> Never { throw .invalid(text) }
        if case .users(let users) = message.recipients {
            if users.isEmpty || users.count > maxRecipients { try fail("to.userIds holds 1-\(maxRecipients) user ids") }
            if let bad = users.first(where: { !ReleasePolicyRules.isUserID($0) }) {
                try fail("malformed user id \"\(bad.prefix(80))\" in to.userIds")
            }
        }
        guard message.texts["default"] != nil else { try fail("text.default (title and body) is required") }
        if message.texts.count > maxLanguages { try fail("at most \(maxLanguages) texts") }
        for (tag, text) in message.texts {
            if tag != "default", !DeviceRules.isLocale(tag) { try fail("text key \"\(tag.prefix(40))\" is no language tag") }
            // Counted in code points, as the contract's JSON Schema counts.
            if text.title.isEmpty || text.title.unicodeScalars.count > maxTitle {
                try fail("a title is 1-\(maxTitle) characters")
            }
            if text.body.unicodeScalars.count > maxBody { try fail("a body is at most \(maxBody) characters") }
        }
        if let data = message.data {
            guard case .object = data else { try fail("data must be a JSON object") }
            if ((try? JSONEncoder().encode(data))?.count ?? .max) > maxDataBytes {
                try fail("data is larger than \(maxDataBytes) bytes encoded")
            }
        }
        if let link = message.link {
            guard let url = URLComponents(string: link), url.scheme == "https", let host = url.host?.lowercased(),
                linkHosts.contains(host)
            else { try fail("link must be an https URL on one of the tenant's link domains") }
        }
        if let collapse = message.collapseID, collapse.isEmpty || collapse.utf8.count > 64 {
            try fail("collapseId is 1-64 bytes")
        }
        if !(0...maxTTLSeconds).contains(message.ttlSeconds) { try fail("ttlSeconds is 0-\(maxTTLSeconds)") }
    }
}
