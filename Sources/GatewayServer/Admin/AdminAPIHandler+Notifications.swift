import AdminAPI
import Foundation
import GatewayCore

/// Operators' notifications on the admin API.
extension AdminAPIHandler {
    func adminListNotifications(
        _ input: Operations.AdminListNotifications.Input
    ) async throws -> Operations.AdminListNotifications.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.notifications(
            try AdminScope.call(), tenantID: input.path.tenant, cursor: input.query.cursor,
            limit: input.query.limit ?? 50)
        let items = try page.items.map { try Self.wire($0, as: Components.Schemas.Notification.self) }
        return .ok(.init(body: .json(.init(items: items, next: page.next))))
    }

    func adminGetNotification(
        _ input: Operations.AdminGetNotification.Input
    ) async throws -> Operations.AdminGetNotification.Output {
        try AdminInput.check(input.path.notification, max: 64, "notification")
        let found = try await service.notification(
            try AdminScope.call(), tenantID: input.path.tenant, id: input.path.notification)
        return .ok(.init(body: .json(try Self.wire(found, as: Components.Schemas.NotificationStatus.self))))
    }

    func adminSendNotification(
        _ input: Operations.AdminSendNotification.Input
    ) async throws -> Operations.AdminSendNotification.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        let bounds: [(String?, Int, String)] = [
            (body.miniAppID, 128, "miniAppID"), (body.link, 2048, "link"), (body.collapseID, 64, "collapseID"),
        ]
        for (value, max, name) in bounds { try AdminInput.check(value, max: max, name) }
        try AdminInput.check(body.userIDs, maxItems: NotificationRules.maxRecipients, "userIDs")
        for user in body.userIDs ?? [] { try AdminInput.check(user, max: 255, "a user id") }
        let texts = body.texts.additionalProperties
        guard (1...NotificationRules.maxLanguages).contains(texts.count) else {
            throw AdminError.badRequest("texts has 1-50 locales")
        }
        for (locale, text) in texts {
            try AdminInput.check(locale, max: 35, "a locale")
            try AdminInput.check(text.title, max: NotificationRules.maxTitle, "a title", empty: true)
            try AdminInput.check(text.body, max: NotificationRules.maxBody, "a body", empty: true)
        }
        if let ttl = body.ttlSeconds, !(0...NotificationRules.maxTTLSeconds).contains(ttl) {
            throw AdminError.badRequest("ttlSeconds is 0-\(NotificationRules.maxTTLSeconds)")
        }
        let recipients: PushRecipients
        switch (body.userIDs, body.everyone) {
        case (let users?, nil), (let users?, false?): recipients = .users(users)
        case (nil, true?): recipients = .allConsented
        default: throw AdminError.badRequest("give exactly one of userIDs and everyone: true")
        }
        let content = PushContent(
            miniAppID: body.miniAppID, recipients: recipients,
            texts: texts.mapValues { PushText(title: $0.title, body: $0.body) }, link: body.link,
            collapseID: body.collapseID,
            ttlSeconds: body.ttlSeconds ?? NotificationRules.defaultTTLSeconds,
            priority: body.priority.flatMap { PushPriority(rawValue: $0.rawValue) } ?? .normal)
        let call = try AdminScope.call()
        let tenantID = input.path.tenant
        let (response, replayed) = try await service.once(
            call, key: input.headers.idempotencyKey,
            fingerprint: try Self.fingerprint("notification-send", tenantID, body: body)
        ) {
            let report = try await service.sendNotification(call, tenantID: tenantID, content)
            return IdempotentResponse(status: 202, etag: nil, body: try Self.json(report))
        }
        return .accepted(
            .init(
                headers: .init(idempotentReplayed: replayed ? ._true : nil),
                body: .json(try Self.wire(json: response.body, as: Components.Schemas.NotificationSendReport.self))))
    }
}
