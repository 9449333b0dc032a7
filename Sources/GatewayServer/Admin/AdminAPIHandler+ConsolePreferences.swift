import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

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
        let issuer = AdminScope.current.issuer
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
