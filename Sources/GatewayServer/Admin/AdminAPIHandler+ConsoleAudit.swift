import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The console's audit record page (issue 49).
extension AdminAPIHandler {
    func consoleAuditRecord(
        _ input: Operations.ConsoleAuditRecord.Input
    ) async throws -> Operations.ConsoleAuditRecord.Output {
        guard let id = Int64(input.path.id), id > 0 else { throw AdminError.badRequest("id is a record's number") }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let (noStore, policy) = ("no-store", ConsolePage.contentSecurityPolicy)
        let found: (record: AuditRecord, link: AuditVerifier.Break?)
        do {
            found = try await service.auditRecord(signedIn.call, id: id)
        } catch let error as AdminError {
            let html = OpenAPIRuntime.HTTPBody(
                ConsolePage.message(
                    texts, title: texts[.refused], text: "\(error)", link: ("/console/audit", texts[.audit])))
            switch error {
            case .forbidden:
                return .forbidden(
                    .init(
                        headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(html)))
            case .tenantNotFound, .auditRecordNotFound:
                return .notFound(
                    .init(
                        headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(html)))
            default: throw error
            }
        }
        let body = ConsoleAuditPage.body(texts, record: found.record, link: found.link)
        let html = signedIn.page(texts, title: texts.format(.auditRecord, String(id)), section: .audit, body: body)
        return .ok(
            .init(
                headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                body: .textHtmlCharsetUtf8(.init(html))))
    }
}

/// The console's one preference: the time zone times are shown in.
extension AdminAPIHandler {
    func consoleSavePreferences(
        _ input: Operations.ConsoleSavePreferences.Input
    ) async throws -> Operations.ConsoleSavePreferences.Output {
        guard case .urlEncodedForm(let form) = input.body else { throw AdminError.badRequest("a form body") }
        try AdminInput.check(form.csrfToken, max: 64, "csrf_token", empty: true)
        try AdminInput.check(form.timeZone, max: 64, "time_zone")
        guard TimeZone(identifier: form.timeZone) != nil else {
            throw AdminError.badRequest("time_zone is not a time zone this gateway knows")
        }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        guard let token = form.csrfToken, ConstantTime.equals(token, signedIn.session.csrf) else {
            let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
            return .forbidden(
                .init(
                    body: .textHtmlCharsetUtf8(
                        .init(
                            ConsolePage.message(
                                texts, title: texts[.refused], text: texts[.refusedFormText],
                                link: ("/console", texts[.overview]))))))
        }
        let issuer = OperatorSignInPage.issuer(authority: AdminScope.current.authority)
        let cookie = ConsoleCookie.timeZone(secure: issuer.hasPrefix("https://"))
        return .seeOther(.init(headers: .init(location: "/console", setCookie: cookie.set(form.timeZone))))
    }

    /// The overview's time-zone form: every zone this gateway knows, UTC first.
    static func timeZoneForm(_ texts: ConsoleTexts, csrf: String) -> String {
        let zones = ["UTC"] + TimeZone.knownTimeZoneIdentifiers.filter { $0 != "UTC" }.sorted()
        let options = zones.map { zone in
            "<option\(zone == texts.timeZoneName ? " selected" : "")>\(ConsolePage.escape(zone))</option>"
        }.joined()
        return """
            <form method="post" action="/console/preferences" class="filters">\
            <input type="hidden" name="csrf_token" value="\(ConsolePage.escape(csrf))">\
            <label>\(ConsolePage.escape(texts[.timeZone]))<select name="time_zone">\(options)</select></label>\
            <button type="submit">\(ConsolePage.escape(texts[.save]))</button></form>
            """
    }
}
