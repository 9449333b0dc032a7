import Foundation

/// Operators' notifications on the admin API: sends (as `operator:<name>`, consent applying as
/// for any sender) and every sender's messages with their delivery funnel.
extension AdminService {
    /// The sender id an operator's sends carry.
    static func sender(_ call: AdminCall) -> String { "operator:" + call.session.caller.name }

    /// Queues `content` to the tenant's users' devices. A message the sending rules refuse answers
    /// 422 `invalid_notification`, recorded. Retries under an `Idempotency-Key` are the handler's
    /// (``once(_:key:fingerprint:_:)``).
    public func sendNotification(
        _ call: AdminCall, tenantID: String, _ content: PushContent
    ) async throws -> NotificationSendReport {
        try await authorize(call, AdminPermission(.act, .notification), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let sender = SenderTokenClaims(
            clientID: Self.sender(call), tenantID: tenantID, scopes: [NotificationService.sendScope],
            miniApps: [content.miniAppID], jti: call.session.tokenID, expiresAt: .distantFuture)
        let service = NotificationService(outbox: outbox, domains: domains, clock: clock)
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        let recipients: JSONValue =
            switch content.recipients {
            case .users(let users): .object(["users": .number(Double(users.count))])
            case .allConsented: .string("everyone who consented")
            }
        let after: [String: JSONValue] = [
            "miniAppID": .string(content.miniAppID), "to": recipients,
            "locales": .array(content.texts.keys.sorted().map(JSONValue.string)),
        ]
        do {
            // No outbox key: retries are the admin idempotency store's, so the outbox never
            // replays a message or refuses a key here.
            let outcome = try await service.send(content, from: sender, idempotencyKey: nil) { id, deliveries in
                AuditDraft(
                    time: now, actor: actor, requestID: requestID, verb: .act,
                    resource: AuditResource(type: .notification, tenant: tenantID, id: id),
                    outcome: AuditOutcome(status: 202),
                    change: AuditChange(
                        before: nil, after: .object(after.merging(["deliveries": .number(Double(deliveries))]) { $1 })))
            }
            guard case .queued(let id, let deliveries) = outcome else {
                throw AdminError.invalidNotification("the outbox replayed a message sent without a key")
            }
            return NotificationSendReport(id: id, deliveries: deliveries)
        } catch NotificationError.invalid(let detail), NotificationError.notAllowed(let detail) {
            try await refused(
                call, .act, AuditResource(type: .notification, tenant: tenantID, id: nil),
                AuditOutcome(status: 422, code: "invalid_notification"))
            throw AdminError.invalidNotification(detail)
        }
    }

    /// Each of `tenantIDs`' deliveries still waiting for a provider, for the tenants whose
    /// notifications the call may read (the console's overview): filtered, never refused.
    public func pushBacklog(_ call: AdminCall, tenantIDs: [String]) async throws -> [String: Int] {
        let readable = tenantIDs.filter { tenantID in
            AdminAuthorizer.decide(
                AdminPermission(.read, .notification), tenantID: tenantID, bindings: call.session.bindings) == .allowed
        }
        return try await outbox.pendingDeliveries(tenantIDs: readable)
    }

    /// One message's funnel per provider (`notification:read`; 404 for a message that is not there).
    public func notificationFunnels(
        _ call: AdminCall, tenantID: String, id: String
    ) async throws -> [PushProvider: DeliveryCounts] {
        try await authorize(call, AdminPermission(.read, .notification), tenantID: tenantID, resourceID: id)
        return try await outbox.countsByProvider(tenantID: tenantID, messageID: id).mapValues(DeliveryCounts.init)
    }

    /// One page of the tenant's messages (every sender's), newest first.
    public func notifications(
        _ call: AdminCall, tenantID: String, cursor: String?, limit: Int
    ) async throws -> (items: [NotificationDocument], next: String?) {
        try await authorize(call, AdminPermission(.read, .notification), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        try Self.checkLimit(limit)
        if let cursor, PushMessageSummary.parse(cursor: cursor) == nil {
            throw AdminError.badRequest("cursor is a page's next")
        }
        let found = try await outbox.messages(tenantID: tenantID, before: cursor, limit: limit + 1)
        let page = Array(found.prefix(limit))
        return (page.map(NotificationDocument.init), found.count > limit ? page.last?.cursor : nil)
    }

    /// One message's funnel and its first deliveries (404 `notification_not_found`).
    public func notification(_ call: AdminCall, tenantID: String, id: String) async throws -> NotificationStatusDocument
    {
        try await authorize(call, AdminPermission(.read, .notification), tenantID: tenantID, resourceID: id)
        _ = try await requireTenant(tenantID)
        guard
            let status = try await outbox.status(
                tenantID: tenantID, clientID: nil, messageID: id, limit: NotificationService.statusDeliveryLimit)
        else { throw AdminError.notificationNotFound(id) }
        return NotificationStatusDocument(status)
    }
}
