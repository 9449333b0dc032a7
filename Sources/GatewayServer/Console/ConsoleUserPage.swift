import Foundation
import GatewayCore

/// The console's user page (issue 64): one user of the tenant and the passkeys it holds, each
/// with a form that removes it (a lost phone) when the operator's roles allow `user:update`;
/// and the tenant page's "Find a user" form that opens it. No script: plain forms, each with
/// the session's CSRF token.
enum ConsoleUserPage {
    static func escape(_ text: String) -> String { ConsolePage.escape(text) }

    /// Where the page of `username` in `tenantID` is.
    static func path(tenantID: String, username: String, done: String? = nil) -> String {
        "/console/t/\(tenantID)/user?username=\(URLQuery.encode(username))" + (done.map { "&done=\($0)" } ?? "")
    }

    /// The form on the tenant page that opens a user's page by username.
    static func findForm(_ texts: ConsoleTexts, tenantID: String) -> String {
        """
        <h2>\(escape(texts[.findUser]))</h2><form method="get" action="/console/t/\(escape(tenantID))/user">\
        <label for="find-user">\(escape(texts[.username]))</label> \
        <input id="find-user" name="username" required maxlength="200" autocomplete="off"> \
        <button type="submit">\(escape(texts[.open]))</button></form>
        """
    }

    /// The page's body: the user's profile, then its passkeys; `csrf` (nil: the roles do not
    /// allow removing) puts a remove button on each.
    static func body(
        _ texts: ConsoleTexts, user: UserDocument, passkeys: [PasskeyDocument], tenantID: String, csrf: String?,
        notice: String?
    ) -> String {
        var body = notice.map { "<p class=\"notice\" role=\"status\">\(escape($0))</p>" } ?? ""
        body += "<p><a href=\"/console/t/\(escape(tenantID))\">\(escape(texts[.tenant])) \(escape(tenantID))</a></p>"
        body += "<dl><dt>\(escape(texts[.username]))</dt><dd>\(escape(user.username))</dd>"
        body += "<dt>\(escape(texts[.displayName]))</dt><dd>\(escape(user.name ?? "-"))</dd>"
        body += "<dt>\(escape(texts[.status]))</dt><dd>\(user.disabled ? "disabled" : "active")</dd></dl>"
        body += "<h2>\(escape(texts[.passkeys]))</h2>"
        guard !passkeys.isEmpty else { return body + "<p>\(escape(texts[.noPasskeys]))</p>" }
        var headers = [texts[.displayName], texts[.created], texts[.lastUsed], texts[.synced]]
        if csrf != nil { headers.append(texts[.actions]) }
        let rows = passkeys.map { passkey in
            var row = [
                escape(passkey.name), texts.time(passkey.createdAt), passkey.lastUsedAt.map(texts.time) ?? "-",
                passkey.backedUp ? "✓" : "-",
            ]
            if let csrf {
                row.append(
                    """
                    <form method="post" action="/console/t/\(escape(tenantID))/user">\
                    <input type="hidden" name="csrf_token" value="\(escape(csrf))">\
                    <input type="hidden" name="username" value="\(escape(user.username))">\
                    <input type="hidden" name="passkey" value="\(escape(passkey.id))">\
                    <button type="submit">\(escape(texts[.removePasskey]))</button></form>
                    """)
            }
            return row
        }
        return body + ConsolePage.table(caption: texts[.passkeys], headers: headers, rows: rows)
    }
}
