import Crypto
import Foundation

/// Sending notifications: decides whether the sender may send for the mini app, checks the
/// message (``NotificationRules``) and queues it in the outbox, idempotently per
/// `Idempotency-Key`. Delivery to APNs and FCM works the outbox.
public struct NotificationService: Sendable {
    /// The scope a sender token needs.
    public static let sendScope = "notifications:send"
    /// Deliveries a status answer lists.
    public static let statusDeliveryLimit = 1_000

    private let outbox: any PushOutboxStore
    private let domains: any TenantDomainStore
    private let clock: WallClock
    private let quota: SendQuota?

    /// - Parameter quota: messages per tenant per minute (nil: unlimited).
    public init(
        outbox: any PushOutboxStore, domains: any TenantDomainStore, quota: SendQuota? = nil, clock: WallClock = .system
    ) {
        self.outbox = outbox
        self.domains = domains
        self.quota = quota
        self.clock = clock
    }

    /// Queues `request` from `sender`.
    /// - Throws: ``NotificationError`` `notAllowed`, `invalid`, `quotaExceeded`, `idempotencyConflict`;
    ///   then nothing is queued.
    /// `trail`, when given, builds the audit record of a message queued now (an operator's send),
    /// appended in the enqueue's transaction.
    public func send(
        _ request: PushContent, from sender: SenderTokenClaims, idempotencyKey: String?,
        trail: (@Sendable (_ messageID: String, _ deliveries: Int) -> AuditDraft)? = nil
    ) async throws -> EnqueueOutcome {
        guard sender.scopes.contains(Self.sendScope) else {
            throw NotificationError.notAllowed("the sender token lacks the scope \(Self.sendScope)")
        }
        guard sender.miniApps.contains(request.miniAppID) else {
            throw NotificationError.notAllowed("this client does not send for mini app \(request.miniAppID.prefix(128))")
        }
        let message = PushMessage(
            id: "msg_" + Base64URL.random(byteCount: 16), tenantID: sender.tenantID, clientID: sender.clientID,
            content: request, createdAt: StoreClock.date(StoreClock.milliseconds(clock.now())))
        var hosts: Set<String> = []
        if request.link != nil {
            hosts = Set(try await domains.domains(tenantID: sender.tenantID).map { $0.host.lowercased() })
        }
        try NotificationRules.check(request, linkHosts: hosts)
        try await quota?.admit(tenantID: sender.tenantID)
        return try await outbox.enqueue(
            message, idempotencyKey: idempotencyKey, requestHash: try Self.hash(request), trail: trail)
    }

    /// The status of a message `sender` sent.
    /// - Throws: ``NotificationError/notFound(messageID:)``.
    public func status(of messageID: String, sender: SenderTokenClaims) async throws -> PushMessageStatus {
        try await status(of: messageID, tenantID: sender.tenantID, clientID: sender.clientID)
    }

    /// The status of a message of `tenantID` sent by `clientID` (nil: by anyone, as operators read it).
    /// - Throws: ``NotificationError/notFound(messageID:)``.
    public func status(of messageID: String, tenantID: String, clientID: String?) async throws -> PushMessageStatus {
        guard
            let status = try await outbox.status(
                tenantID: tenantID, clientID: clientID, messageID: messageID, limit: Self.statusDeliveryLimit)
        else { throw NotificationError.notFound(messageID: messageID) }
        return status
    }

    /// A digest of the request (its canonical JSON), so a retried call is recognised.
    static func hash(_ request: PushContent) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Base64URL.encode(SHA256.hash(data: try encoder.encode(request)))
    }
}
