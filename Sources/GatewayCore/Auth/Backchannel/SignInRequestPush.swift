import Foundation

/// A backchannel request reaching the user (issue 50): a push to the user's registered
/// devices through the tenant's APNs and FCM credentials, on the host app's own channel (no
/// mini app's consent), with the client and the binding message; once answered, a second push
/// with the same collapse id replaces it on the other devices.
public struct SignInRequestPush: Sendable {
    /// The outbox's mini-app id of the host app's own channel: no mini app can have it (ids
    /// never start with `_`), and the outbox queues it without asking for a consent.
    public static let channel = "_sign-in"

    private let outbox: any PushOutboxStore
    private let clock: WallClock

    public init(outbox: any PushOutboxStore, clock: WallClock) {
        self.outbox = outbox
        self.clock = clock
    }

    /// Queues the request's notification for its user. A hint that named nobody gets the same
    /// write for a subject nobody has (no delivery), so both take the same time. Answers the
    /// deliveries queued.
    @discardableResult
    public func announce(_ request: BackchannelRequest, clientName: String) async throws -> Int {
        let subject = request.subject ?? "nobody-" + Base64URL.random(byteCount: 16)
        let message = request.bindingMessage.map { " (\($0))" } ?? ""
        let content = content(
            request, to: subject, english: "\(clientName) asks you to sign in\(message).",
            japanese: "\(clientName) がサインインを求めています\(message)。",
            data: ["type": "sign-in-request", "requestId": .string(request.id), "clientId": .string(request.clientID)],
            priority: .high)
        return try await queue(content, request: request, kind: "ask")
    }

    /// Replaces the request's notification on the user's devices: it was answered.
    @discardableResult
    public func withdraw(_ request: BackchannelRequest, approved: Bool) async throws -> Int {
        guard let subject = request.subject else { return 0 }
        let content = content(
            request, to: subject, english: approved ? "Approved." : "Denied.",
            japanese: approved ? "承認しました。" : "拒否しました。",
            data: ["type": "sign-in-request-answered", "requestId": .string(request.id)], priority: .normal)
        return try await queue(content, request: request, kind: "answer")
    }

    /// A notification about `request` for `subject`'s devices: titled "Sign-in request" in
    /// English and Japanese, collapsed onto the request's earlier ones, living as long as it.
    private func content(
        _ request: BackchannelRequest, to subject: String, english: String, japanese: String,
        data: [String: JSONValue], priority: PushPriority
    ) -> PushContent {
        PushContent(
            miniAppID: Self.channel, recipients: .users([subject]),
            texts: [
                "default": PushText(title: "Sign-in request", body: english),
                "ja": PushText(title: "サインインの要求", body: japanese),
            ],
            data: .object(data), collapseID: request.id,
            ttlSeconds: max(1, Int(request.expiresAt.timeIntervalSince(clock.now()))), priority: priority)
    }

    private func queue(_ content: PushContent, request: BackchannelRequest, kind: String) async throws -> Int {
        let message = PushMessage(
            id: "msg_" + Base64URL.random(byteCount: 16), tenantID: request.tenantID, clientID: request.clientID,
            content: content, createdAt: StoreClock.date(StoreClock.milliseconds(clock.now())))
        // One notification per request and kind, whichever replica asks twice.
        let outcome = try await outbox.enqueue(
            message, idempotencyKey: "ciba-\(kind)-\(request.id)", requestHash: request.id + kind)
        if case .queued(_, let deliveries) = outcome { return deliveries }
        return 0
    }
}
