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

    /// The most either provider takes in one notification: APNs and FCM both refuse a payload
    /// over 4,096 bytes (APNs 413 `PayloadTooLarge`, FCM 400 `INVALID_ARGUMENT`).
    public static let maxBytes = 4_096
    /// What ends a body that was cut to fit.
    public static let cutMark = "\u{2026}"

    /// This payload with its body cut, at a character (grapheme) boundary and ending in
    /// ``cutMark``, to the longest that keeps `size` (the provider's encoded payload) within
    /// `limit`; unchanged when it fits. A message's push is cut so; its inbox copy keeps the
    /// whole text. When nothing of the body fits (the title and data alone are too large), the
    /// body is the mark alone and the provider refuses what it refuses.
    public func fitted(within limit: Int = PushPayload.maxBytes, size: (PushPayload) -> Int) -> PushPayload {
        guard size(self) > limit else { return self }
        let characters = Array(body)
        var cut = self
        func keeping(_ count: Int) -> PushPayload {
            cut.body = String(characters.prefix(count)) + Self.cutMark
            return cut
        }
        // The longest prefix that fits: sizes grow with the prefix, so a binary search finds it.
        var (fits, tooLong) = (0, characters.count)
        while tooLong - fits > 1 {
            let middle = (fits + tooLong) / 2
            if size(keeping(middle)) <= limit { fits = middle } else { tooLong = middle }
        }
        return keeping(fits)
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
