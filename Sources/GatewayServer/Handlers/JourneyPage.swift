import GatewayCore

/// A journey's screen as the hosted page's form (issue 63 §3): the same ``JourneyScreen`` a
/// native app draws, rendered without script in the sign-in pages' style. Each field is a
/// labelled input of its type with its autofill hint and pattern; a message about a field sits
/// under it (and describes it); messages about the screen are announced; each action is a
/// button named `action`, the first the form's default.
enum JourneyPage {
    static func render(
        _ screen: JourneyScreen, tenant: Tenant, texts: LoginTexts, csrf: String
    ) -> String {
        let title = texts.text(screen.titleKey, ["tenant": tenant.displayName])
        // Errors are announced (`role=alert`); notes such as "we sent a code" are not errors.
        let general = screen.messages.filter { $0.field == nil }
        let errors = general.filter { $0.key.hasPrefix("journey.error.") }.map { texts.text($0.key, $0.values) }
        let notes = general.filter { !$0.key.hasPrefix("journey.error.") }.map { texts.text($0.key, $0.values) }
        let alert =
            (notes.isEmpty ? "" : LoginPage.noteParagraph(notes.joined(separator: " ")))
            + (errors.isEmpty ? "" : LoginPage.alertParagraph(errors.joined(separator: " ")))
        // The focus goes to the first field a message is about, else the first field.
        let focus = screen.fields.first { field in screen.messages.contains { $0.field == field.name } }?.name
            ?? screen.fields.first?.name
        // The identifier field offers the person's passkeys too (conditional mediation).
        let conditional = screen.fields.contains { if case .get = $0.options { true } else { false } }
        let fields = screen.fields.map { field in
            var shown = field
            if conditional, field.name == "identifier" { shown.autocomplete = (field.autocomplete ?? "username") + " webauthn" }
            return input(shown, texts: texts, message: screen.messages.first { $0.field == field.name }, focus: field.name == focus)
        }.joined()
        let buttons = screen.actions.enumerated().map { index, action -> String in
            let label = LoginPage.escape(texts.text("journey.action.\(action.rawValue)"))
            return index == 0
                ? "<button type=\"submit\" name=\"action\" value=\"\(action.rawValue)\">\(label)</button>"
                : "<button type=\"submit\" name=\"action\" value=\"\(action.rawValue)\" class=\"secondary\" formnovalidate>\(label)</button>"
        }.joined()
        return LoginPage.page(
            title: title,
            body: """
                \(LoginPage.logo(tenant))<h1>\(LoginPage.escape(title))</h1>\(alert)
                <form method="post"><input type="hidden" name="csrf_token" value="\(LoginPage.escape(csrf))">
                \(fields)\(buttons)</form>
                """, locale: texts.locale, theme: tenant.theme)
    }

    /// One field: its label, its input, and the message about it.
    private static func input(
        _ field: JourneyScreen.Field, texts: LoginTexts, message: JourneyScreen.Message?, focus: Bool
    ) -> String {
        let id = "f-" + field.name
        let label = LoginPage.escape(texts.text(field.labelKey))
        var attributes = "id=\"\(id)\" name=\"\(LoginPage.escape(field.name))\""
        if field.required { attributes += " required" }
        if let hint = field.autocomplete { attributes += " autocomplete=\"\(LoginPage.escape(hint))\"" }
        if message != nil {
            attributes += " aria-invalid=\"true\" aria-describedby=\"m-\(field.name)\""
        }
        if focus { attributes += " autofocus" }
        let error = message.map {
            "<p class=\"field-error\" id=\"m-\(field.name)\">\(LoginPage.escape(texts.text($0.key, $0.values)))</p>"
        } ?? ""
        switch field.type {
        case .passkey:
            return PasskeyPageScript.field(field, id: id, error: error)
        case .checkbox:
            return "<label class=\"check\"><input type=\"checkbox\" value=\"true\" \(attributes)> \(label)</label>\(error)"
        case .code:
            attributes += " inputmode=\"numeric\" maxlength=\"6\""
        case .text:
            attributes += " autocapitalize=\"none\" spellcheck=\"false\""
        case .email, .tel, .password:
            break
        }
        if let pattern = field.pattern { attributes += " pattern=\"\(LoginPage.escape(pattern))\"" }
        if let value = field.value, field.type != .password, field.type != .code {
            attributes += " value=\"\(LoginPage.escape(value))\""
        }
        let type = field.type == .code ? "text" : field.type.rawValue
        return "<label for=\"\(id)\">\(label)</label><input type=\"\(type)\" \(attributes)>\(error)"
    }
}
