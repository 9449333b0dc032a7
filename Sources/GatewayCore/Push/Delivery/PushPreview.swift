import Foundation

/// What a device will show for a message before it is sent (the console's send form, issue
/// 49): for a locale, the text the device picks (``PushPayload/text(_:locale:)``) and, per
/// provider, that text after the provider's own cut to 4,096 bytes, exactly as the delivery
/// path builds the request.
public enum PushPreview {
    /// One provider's copy on one device.
    public struct Shown: Sendable, Equatable {
        public var provider: PushProvider
        public var title: String
        public var body: String
        /// The body was cut to fit the provider's payload limit.
        public var cut: Bool
    }

    /// What a device with `locale` shows from `content`, on APNs and on FCM. The device token
    /// is a placeholder of each provider's usual length, so the cut matches a real request.
    public static func shown(_ content: PushContent, locale: String?, now: Date) -> [Shown] {
        let message = PushMessage(
            id: "msg_preview0000000000000000", tenantID: "preview", clientID: "preview",
            content: content, createdAt: now)
        return [PushProvider.apns, .fcm].map { provider in
            let delivery = ClaimedDelivery(
                tenantID: "preview", messageID: message.id, deviceID: "preview", userID: "preview",
                provider: provider,
                token: String(repeating: provider == .apns ? "a" : "x", count: provider == .apns ? 64 : 163),
                locale: locale, apnsEnvironment: nil, attempts: 0, message: message)
            let whole = PushPayload(delivery)
            let sent: PushPayload
            switch provider {
            case .apns: sent = whole.fitted { (try? APNsClient.body($0).encoded().count) ?? .max }
            case .fcm:
                let body = FCMClient.message(delivery, now: now)
                let notification = body.objectValue?["message"]?.objectValue?["notification"]?.objectValue
                var fitted = whole
                fitted.body = notification?["body"]?.stringValue ?? whole.body
                sent = fitted
            }
            return Shown(provider: provider, title: sent.title, body: sent.body, cut: sent.body != whole.body)
        }
    }
}
