/// Abuse bounds on messages between users, counted in fixed windows on the shared cache
/// (Redis `INCRBY` + TTL, so every replica sees one count; in-process without Redis). A
/// counter failure lets messages through (fail open), as request limits do.
public struct MessageLimits: Sendable, Equatable {
    /// Messages (one per recipient) a user may send per minute; 0: unlimited.
    public var perSenderPerMinute: Int
    /// Messages a user may send per UTC day; 0: unlimited.
    public var perSenderPerDay: Int
    /// Messages a user may receive per hour from everyone; 0: unlimited.
    public var perRecipientPerHour: Int

    public init(perSenderPerMinute: Int = 30, perSenderPerDay: Int = 500, perRecipientPerHour: Int = 60) {
        self.perSenderPerMinute = perSenderPerMinute
        self.perSenderPerDay = perSenderPerDay
        self.perRecipientPerHour = perRecipientPerHour
    }
}

/// Counts messages against ``MessageLimits``.
struct MessageCounters: Sendable {
    let cache: any Cache
    let limits: MessageLimits
    let clock: WallClock

    /// Counts `count` messages of `senderID`. A refused send charges nothing: what it added to
    /// any window is taken back before it is refused.
    /// - Throws: ``MessagingError/rateLimited(retryAfterSeconds:limit:)`` past a sender limit.
    func admitSender(tenantID: String, senderID: String, count: Int) async throws(MessagingError) {
        let checks = [
            (limits.perSenderPerMinute, Duration.seconds(60), "m", "its messages per minute"),
            (limits.perSenderPerDay, Duration.seconds(86_400), "d", "its messages per day"),
        ]
        var charged: [(key: String, ttl: Duration)] = []
        for (limit, length, tag, name) in checks where limit > 0 {
            let (window, retryAfter) = RateLimiter.window(nowMilliseconds: clock.milliseconds(), length: length)
            let key = Self.senderKey(tag, tenantID: tenantID, senderID: senderID, window: window)
            let ttl = length + .seconds(1)
            guard let total = try? await cache.increment(key, by: Int64(count), ttl: ttl) else { continue }
            charged.append((key, ttl))
            if total > Int64(limit) {
                for (key, ttl) in charged { _ = try? await cache.increment(key, by: -Int64(count), ttl: ttl) }
                throw .rateLimited(retryAfterSeconds: retryAfter, limit: "\(name) (\(limit))")
            }
        }
    }

    /// The counter of one sender's messages in one window (`tag`: `m` per minute, `d` per day).
    static func senderKey(_ tag: String, tenantID: String, senderID: String, window: Int64) -> String {
        "gw:msg:\(tag):\(tenantID):\(senderID):\(window)"
    }

    /// Counts one message to `recipientID`; false past the recipient's hourly limit.
    func admitRecipient(tenantID: String, recipientID: String) async -> Bool {
        guard limits.perRecipientPerHour > 0 else { return true }
        let (window, _) = RateLimiter.window(nowMilliseconds: clock.milliseconds(), length: .seconds(3_600))
        guard
            let total = try? await cache.increment(
                "gw:msg:r:\(tenantID):\(recipientID):\(window)", by: 1, ttl: .seconds(3_601))
        else { return true }
        return total <= Int64(limits.perRecipientPerHour)
    }
}
