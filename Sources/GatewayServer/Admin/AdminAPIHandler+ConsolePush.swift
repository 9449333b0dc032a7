import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The console's push pages (issue 49): a tenant's notifications with their funnels, and one
/// notification's funnel drawn as a chart.
extension AdminAPIHandler {
    func consoleNotifications(
        _ input: Operations.ConsoleNotifications.Input
    ) async throws -> Operations.ConsoleNotifications.Output {
        guard TenantID.isValid(input.path.tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        try AdminInput.check(input.query.cursor, max: 100, "cursor", empty: true)
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let tenantID = input.path.tenant
        let page: (items: [NotificationDocument], next: String?)
        do {
            page = try await service.notifications(
                signedIn.call, tenantID: tenantID, cursor: input.query.cursor.flatMap { $0.isEmpty ? nil : $0 },
                limit: 50)
        } catch let error as AdminError {
            let html = ConsolePage.message(
                texts, title: texts[.refused], text: texts.refusal(error), link: ("/console", texts[.overview]))
            switch error {
            case .forbidden: return .forbidden(.init(body: .textHtmlCharsetUtf8(.init(html))))
            case .tenantNotFound: return .notFound(.init(body: .textHtmlCharsetUtf8(.init(html))))
            default: throw error
            }
        }
        let rows = page.items.map { item in
            let link = "/console/t/\(tenantID)/notifications/\(URLQuery.encode(item.id))"
            return [
                texts.time(item.createdAt),
                "<a href=\"\(ConsolePage.escape(link))\">\(ConsolePage.escape(item.id))</a>",
                ConsolePage.escape(item.sender), ConsolePage.escape(item.miniAppID), String(item.counts.total),
                String(item.counts.sent), String(item.counts.failed + item.counts.invalidToken + item.counts.expired),
                String(item.counts.pending),
            ]
        }
        var body =
            rows.isEmpty
            ? "<p>\(ConsolePage.escape(texts[.noNotifications]))</p>"
            : ConsolePage.table(
                caption: texts[.notifications],
                headers: [
                    texts[.time], "ID", texts[.sender], texts[.miniApp], texts[.queued], texts[.funnelSent],
                    texts[.notDelivered], texts[.funnelPending],
                ], rows: rows)
        if let next = page.next {
            let link = "/console/t/\(tenantID)/notifications?cursor=\(URLQuery.encode(next))"
            body += "<p><a href=\"\(ConsolePage.escape(link))\">\(ConsolePage.escape(texts[.next]))</a></p>"
        }
        let canSend =
            AdminAuthorizer.decide(
                AdminPermission(.act, .notification), tenantID: tenantID, bindings: signedIn.call.session.bindings)
            == .allowed
        if canSend { body = ConsoleSendPage.form(texts, csrf: signedIn.session.csrf, draft: nil) + body }
        let html = signedIn.page(texts, title: "\(texts[.notifications]) · \(tenantID)", section: nil, body: body)
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy),
                body: .textHtmlCharsetUtf8(.init(html))))
    }

    func consoleNotification(
        _ input: Operations.ConsoleNotification.Input
    ) async throws -> Operations.ConsoleNotification.Output {
        guard TenantID.isValid(input.path.tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        try AdminInput.check(input.path.id, max: 64, "id")
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let tenantID = input.path.tenant
        let status: NotificationStatusDocument
        let byProvider: [PushProvider: DeliveryCounts]
        do {
            status = try await service.notification(signedIn.call, tenantID: tenantID, id: input.path.id)
            byProvider = try await service.notificationFunnels(signedIn.call, tenantID: tenantID, id: input.path.id)
        } catch let error as AdminError {
            let html = ConsolePage.message(
                texts, title: texts[.refused], text: texts.refusal(error), link: ("/console", texts[.overview]))
            switch error {
            case .forbidden: return .forbidden(.init(body: .textHtmlCharsetUtf8(.init(html))))
            case .tenantNotFound, .notificationNotFound:
                return .notFound(.init(body: .textHtmlCharsetUtf8(.init(html))))
            default: throw error
            }
        }
        let facts =
            "<dl class=\"policy\"><dt>\(ConsolePage.escape(texts[.sender]))</dt><dd>\(ConsolePage.escape(status.sender))</dd>"
            + "<dt>\(ConsolePage.escape(texts[.miniApp]))</dt><dd>\(ConsolePage.escape(status.miniAppID))</dd>"
            + "<dt>\(ConsolePage.escape(texts[.time]))</dt><dd>\(texts.time(status.createdAt))</dd>"
            + "<dt>\(ConsolePage.escape(texts[.locales]))</dt><dd>\(ConsolePage.escape(status.locales.joined(separator: ", ")))</dd></dl>"
        let devices = status.devices.map { device in
            [
                ConsolePage.escape(device.deviceID), ConsolePage.escape(device.userID),
                ConsolePage.escape(device.state),
                String(device.attempts),
            ]
        }
        let providers = PushProvider.allCases.compactMap { provider in
            byProvider[provider].map { counts in
                "<h3>\(provider == .apns ? "APNs (iOS)" : "FCM (Android)")</h3>"
                    + ConsoleChart.funnel(counts, texts: texts, id: "funnel-\(provider.rawValue)")
            }
        }.joined()
        let body =
            facts + ConsoleChart.funnel(status.counts, texts: texts)
            + (providers.isEmpty ? "" : "<h2>\(ConsolePage.escape(texts[.byProvider]))</h2>" + providers)
            + ConsolePage.table(
                caption: texts[.deliveries], headers: [texts[.device], texts[.user], texts[.state], texts[.attempts]],
                rows: devices)
            + "<p><a href=\"/console/t/\(tenantID)/notifications\">\(ConsolePage.escape(texts[.notifications]))</a></p>"
        let html = signedIn.page(texts, title: "\(texts[.notification]) \(status.id)", section: nil, body: body)
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy),
                body: .textHtmlCharsetUtf8(.init(html))))
    }
}
