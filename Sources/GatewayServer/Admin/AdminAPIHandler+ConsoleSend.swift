import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The console's send form (issue 49): a preview of every locale's device on each provider,
/// then the send itself through the admin service, once per preview (its `key`).
extension AdminAPIHandler {
    func consoleSendNotification(
        _ input: Operations.ConsoleSendNotification.Input
    ) async throws -> Operations.ConsoleSendNotification.Output {
        guard TenantID.isValid(input.path.tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        guard case .urlEncodedForm(let form) = input.body else { throw AdminError.badRequest("a form body") }
        let bounds: [(String?, Int, String)] = [
            (form.csrfToken, 64, "csrf_token"), (Optional(form.miniApp), 128, "mini_app"), (form.users, 100_000, "users"),
            (form.everyone, 8, "everyone"), (form.title, 1_024, "title"), (form.body, 16_000, "body"),
            (form.locale2, 35, "locale_2"), (form.title2, 1_024, "title_2"), (form.body2, 16_000, "body_2"),
            (form.locale3, 35, "locale_3"), (form.title3, 1_024, "title_3"), (form.body3, 16_000, "body_3"),
            (form.key, 64, "key"), (form.confirm, 8, "confirm"),
        ]
        for (value, max, name) in bounds { try AdminInput.check(value, max: max, name, empty: true) }
        guard !form.miniApp.isEmpty else { throw AdminError.badRequest("mini_app is required") }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let tenantID = input.path.tenant
        let title = "\(texts[.notifications]) · \(tenantID)"
        func page(_ body: String) -> OpenAPIRuntime.HTTPBody {
            .init(signedIn.page(texts, title: title, section: nil, body: body))
        }
        let (noStore, policy) = ("no-store", ConsolePage.contentSecurityPolicy)
        guard let token = form.csrfToken, ConstantTime.equals(token, signedIn.session.csrf) else {
            let body = page("<p class=\"error\" role=\"alert\">\(ConsolePage.escape(texts[.refusedFormText]))</p>")
            return .forbidden(
                .init(
                    headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                    body: .textHtmlCharsetUtf8(body)))
        }
        let draft = Self.draft(form)
        let again = { (why: String) -> Operations.ConsoleSendNotification.Output in
            let body = page(
                "<p class=\"error\" role=\"alert\">\(ConsolePage.escape(why))</p>"
                    + ConsoleSendPage.form(texts, csrf: signedIn.session.csrf, draft: draft))
            return .unprocessableContent(
                .init(
                    headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                    body: .textHtmlCharsetUtf8(body)))
        }
        // How a refusal reads on the page; anything else is the problem middleware's.
        let refused = { (error: AdminError) throws -> Operations.ConsoleSendNotification.Output in
            let body = page("<p class=\"error\" role=\"alert\">\(ConsolePage.escape(texts.refusal(error)))</p>")
            let headers = Operations.ConsoleSendNotification.Output.Forbidden.Headers(
                cacheControl: noStore, contentSecurityPolicy: policy)
            switch error {
            case .forbidden: return .forbidden(.init(headers: headers, body: .textHtmlCharsetUtf8(body)))
            case .tenantNotFound:
                return .notFound(
                    .init(
                        headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(body)))
            case .invalidNotification(let why): return again(why)
            default: throw error
            }
        }
        if draft.users.count > NotificationRules.maxRecipients {
            return again("at most \(NotificationRules.maxRecipients) users")
        }
        if form.confirm != "yes" {
            guard
                AdminAuthorizer.decide(
                    AdminPermission(.act, .notification), tenantID: tenantID, bindings: signedIn.call.session.bindings)
                    == .allowed
            else { return try refused(.forbidden(missing: AdminPermission(.act, .notification))) }
            do {
                try NotificationRules.check(draft.content, linkHosts: [])
            } catch {
                return again("\(error)")
            }
            let body = ConsoleSendPage.preview(
                texts, draft, csrf: signedIn.session.csrf, key: Base64URL.random(byteCount: 16), now: clock.now())
            return .ok(
                .init(
                    headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                    body: .textHtmlCharsetUtf8(page(body))))
        }
        let report: NotificationSendReport
        do {
            let content = draft.content
            let (response, _) = try await service.once(
                signedIn.call, key: form.key.flatMap { $0.isEmpty ? nil : "console-send:" + $0 },
                fingerprint: try Self.fingerprint("console-send", tenantID, body: content)
            ) {
                let report = try await service.sendNotification(signedIn.call, tenantID: tenantID, content)
                return IdempotentResponse(status: 202, etag: nil, body: try Self.json(report))
            }
            report = try JSONDecoder().decode(NotificationSendReport.self, from: Data(response.body.utf8))
        } catch let error as AdminError {
            return try refused(error)
        }
        return .seeOther(
            .init(headers: .init(location: "/console/t/\(tenantID)/notifications/\(URLQuery.encode(report.id))")))
    }

    /// The form's fields as a draft: blank extra locales left out.
    static func draft(
        _ form: Operations.ConsoleSendNotification.Input.Body.UrlEncodedFormPayload
    )
        -> ConsoleSendPage.Draft
    {
        var texts = [(locale: "default", title: form.title ?? "", body: form.body ?? "")]
        for (locale, title, body) in [(form.locale2, form.title2, form.body2), (form.locale3, form.title3, form.body3)]
        {
            guard let locale = locale?.trimmingCharacters(in: .whitespaces), !locale.isEmpty else { continue }
            texts.append((locale, title ?? "", body ?? ""))
        }
        return ConsoleSendPage.Draft(
            miniAppID: form.miniApp, users: ConsoleSendPage.Draft.userIDs(form.users ?? ""),
            everyone: form.everyone == "yes", texts: texts)
    }
}
