import Foundation

/// What one device's copy says, shared by both providers: the text picked by the device's
/// locale, the data, the link, and the headers' values.
public struct PushPayload: Sendable, Equatable {
    public var title: String
    public var body: String
    /// The sender's data object, as given.
    public var data: [String: JSONValue]
    public var link: String?
    /// The sender's collapse id, else the message id (so a repeated delivery replaces itself);
    /// at most 64 bytes either way (``NotificationRules``; `msg_` + 22 characters), as APNs allows.
    public var collapseID: String
    public var priority: PushPriority
    /// When the provider should stop trying.
    public var expiresAt: Date

    public init(_ delivery: ClaimedDelivery) {
        let content = delivery.message.content
        let text = Self.text(content.texts, locale: delivery.locale)
        title = text?.title ?? ""
        body = text?.body ?? ""
        if case .object(let fields)? = content.data { data = fields } else { data = [:] }
        link = content.link
        collapseID = content.collapseID ?? delivery.message.id
        priority = content.priority
        expiresAt = delivery.message.expiresAt
    }

    /// The text for `locale`: the exact tag, then its language (`ja-JP` → `ja`), then `default`.
    /// Tags compare case-insensitively (BCP 47).
    public static func text(_ texts: [String: PushText], locale: String?) -> PushText? {
        if let locale {
            let wanted = locale.lowercased()
            if let exact = texts.first(where: { $0.key.lowercased() == wanted }) { return exact.value }
            let language = wanted.split(separator: "-").first.map(String.init) ?? wanted
            if let near = texts.first(where: { $0.key.lowercased() == language }) { return near.value }
        }
        return texts["default"]
    }

    /// The data as strings (FCM's `data` is a string map): strings as they are, other values as JSON.
    public var stringData: [String: String] {
        var result: [String: String] = [:]
        for (key, value) in data {
            if case .string(let text) = value {
                result[key] = text
            } else {
                result[key] = (try? value.encoded()).map { String(decoding: $0, as: UTF8.self) } ?? ""
            }
        }
        if let link { result["link"] = link }
        return result
    }
}
