import Foundation
import GatewayCore

/// The console's send form and its preview (issue 49): recipients (named users or everyone
/// who consented), a text per locale, and before anything is queued, what a device of each
/// locale shows on each provider after the provider's cut.
enum ConsoleSendPage {
    /// The form's fields as posted (blank fields are nil).
    struct Draft {
        var miniAppID: String
        var users: [String]
        var everyone: Bool
        /// `default` first, then the other locales in the form's order.
        var texts: [(locale: String, title: String, body: String)]

        /// The message the draft asks for.
        var content: PushContent {
            var byLocale: [String: PushText] = [:]
            for text in texts { byLocale[text.locale] = PushText(title: text.title, body: text.body) }
            return PushContent(
                miniAppID: miniAppID, recipients: everyone ? .allConsented : .users(users), texts: byLocale)
        }

        /// User ids from a text area: one per line or separated by commas or spaces.
        static func userIDs(_ text: String) -> [String] {
            text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        }
    }

    /// Extra locale rows in the form besides `default`.
    static let extraLocales = 2

    /// The form, filled with `draft` when it is shown again.
    static func form(_ texts: ConsoleTexts, csrf: String, draft: Draft?) -> String {
        let value = { (text: String?) in "value=\"\(ConsolePage.escape(text ?? ""))\"" }
        let extra = Array((draft?.texts ?? []).dropFirst())
        var rows = textRow(
            texts, suffix: "", locale: nil, title: draft?.texts.first?.title, body: draft?.texts.first?.body)
        for index in 0..<extraLocales {
            let text = index < extra.count ? extra[index] : nil
            rows += textRow(
                texts, suffix: "_\(index + 2)", locale: text?.locale ?? "", title: text?.title,
                body: text?.body)
        }
        return """
            <h2>\(ConsolePage.escape(texts[.sendTitle]))</h2><form method="post" class="send">\
            <input type="hidden" name="csrf_token" value="\(ConsolePage.escape(csrf))">\
            <label>\(ConsolePage.escape(texts[.miniApp]))<input name="mini_app" required maxlength="128" \
            \(value(draft?.miniAppID))></label>\
            <label>\(ConsolePage.escape(texts[.sendUsers]))<textarea name="users" rows="2">\
            \(ConsolePage.escape(draft?.users.joined(separator: "\n") ?? ""))</textarea></label>\
            <label class="check"><input type="checkbox" name="everyone" value="yes"\
            \(draft?.everyone == true ? " checked" : "")> \(ConsolePage.escape(texts[.sendEveryone]))</label>\
            \(rows)<button type="submit">\(ConsolePage.escape(texts[.preview]))</button></form>
            """
    }

    private static func textRow(
        _ texts: ConsoleTexts, suffix: String, locale: String?, title: String?, body: String?
    ) -> String {
        let localeField =
            locale == nil
            ? "<span class=\"locale\">default</span>"
            : "<label>\(ConsolePage.escape(texts[.locale]))<input name=\"locale\(suffix)\" maxlength=\"35\" "
                + "placeholder=\"ja\" value=\"\(ConsolePage.escape(locale ?? ""))\"></label>"
        let required = locale == nil ? " required" : ""
        return """
            <fieldset><legend>\(ConsolePage.escape(texts.format(.textFor, locale ?? "default")))</legend>\(localeField)\
            <label>\(ConsolePage.escape(texts[.titleField]))<input name="title\(suffix)" maxlength="\
            \(NotificationRules.maxTitle)"\(required) value="\(ConsolePage.escape(title ?? ""))"></label>\
            <label>\(ConsolePage.escape(texts[.bodyField]))<textarea name="body\(suffix)" rows="3" maxlength="\
            \(NotificationRules.maxBody)">\(ConsolePage.escape(body ?? ""))</textarea></label></fieldset>
            """
    }

    /// What will be sent to whom, each locale's device on each provider, and the form to
    /// confirm it (the same fields, `confirm=yes` and the send's idempotency `key`).
    static func preview(_ texts: ConsoleTexts, _ draft: Draft, csrf: String, key: String, now: Date) -> String {
        let whom =
            draft.everyone
            ? texts.format(.sendToEveryone, draft.miniAppID)
            : texts.format(.sendToUsers, String(draft.users.count), draft.miniAppID)
        let devices = draft.texts.map { text in
            let shown = PushPreview.shown(draft.content, locale: text.locale == "default" ? nil : text.locale, now: now)
            let phones = shown.map { copy in
                """
                <figure class="device"><figcaption>\(ConsolePage.escape(copy.provider == .apns ? "APNs (iOS)" : "FCM (Android)"))\
                </figcaption><strong>\(ConsolePage.escape(copy.title))</strong><p>\(ConsolePage.escape(copy.body))</p>\
                \(copy.cut ? "<p class=\"muted\">\(ConsolePage.escape(texts[.cutToFit]))</p>" : "")</figure>
                """
            }.joined()
            return "<section class=\"locale-preview\"><h3>\(ConsolePage.escape(text.locale))</h3>"
                + "<div class=\"devices\">\(phones)</div></section>"
        }.joined()
        var fields = [("csrf_token", csrf), ("mini_app", draft.miniAppID), ("key", key), ("confirm", "yes")]
        if draft.everyone {
            fields.append(("everyone", "yes"))
        } else {
            fields.append(("users", draft.users.joined(separator: "\n")))
        }
        for (index, text) in draft.texts.enumerated() {
            let suffix = index == 0 ? "" : "_\(index + 1)"
            if index > 0 { fields.append(("locale" + suffix, text.locale)) }
            fields += [("title" + suffix, text.title), ("body" + suffix, text.body)]
        }
        let hidden = fields.map { "<input type=\"hidden\" name=\"\($0)\" value=\"\(ConsolePage.escape($1))\">" }
            .joined()
        return "<p>\(ConsolePage.escape(whom))</p>\(devices)<form method=\"post\" class=\"action\">\(hidden)"
            + "<button type=\"submit\">\(ConsolePage.escape(texts[.sendNow]))</button></form>"
            + "<p><a href=\"?\">\(ConsolePage.escape(texts[.cancel]))</a></p>"
    }
}
