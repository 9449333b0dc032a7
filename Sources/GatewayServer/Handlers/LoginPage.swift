import GatewayCore

/// The server-rendered sign-in and error pages: self-contained HTML (no external assets,
/// inline style allowed by the CSP hash-free `style-src 'unsafe-inline'` only), labelled fields.
enum LoginPage {
    /// Sent with every page.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    private static let style = "body{font-family:system-ui,sans-serif;max-width:24rem;margin:3rem auto;padding:0 1rem}label{display:block;margin-top:1rem}input{width:100%;padding:.5rem;font-size:1rem}button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem}.error{color:#a00}"

    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>\(escape(title))</title><style>\(style)</style></head>
        <body><main>\(body)</main></body></html>
        """
    }

    /// The sign-in form carrying every authorization parameter as hidden fields.
    static func form(tenantName: String, action: String, request: AuthorizationRequest, csrf: String, username: String?, error: String?) -> String {
        let hidden: [(String, String?)] = [
            ("response_type", request.responseType), ("client_id", request.clientID), ("redirect_uri", request.redirectURI),
            ("scope", request.scope), ("state", request.state), ("nonce", request.nonce), ("code_challenge", request.codeChallenge),
            ("code_challenge_method", request.codeChallengeMethod), ("request_uri", request.requestURI), ("csrf_token", csrf),
        ]
        let fields = hidden.compactMap { name, value in value.map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(escape($0))\">" } }.joined()
        let alert = error.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        return page(title: "Sign in – \(tenantName)", body: """
            <h1>Sign in to \(escape(tenantName))</h1>\(alert)
            <form method="post" action="\(escape(action))">\(fields)
            <label for="username">Username</label><input id="username" name="username" autocomplete="username" required value="\(escape(username ?? ""))">
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit">Sign in</button></form>
            """)
    }

    /// The signed-out page's offer to end every session of the user.
    static func signOutEverywhereForm(action: String, idTokenHint: String, csrf: String) -> String {
        """
        <p>You are signed out of this app on this device. Your other devices and apps stay signed in.</p>
        <form method="post" action="\(escape(action))"><input type="hidden" name="id_token_hint" value="\(escape(idTokenHint))">\
        <input type="hidden" name="everywhere" value="true"><input type="hidden" name="csrf_token" value="\(escape(csrf))">
        <button type="submit">Sign out on all devices</button></form>
        """
    }

    static func error(_ message: String) -> String {
        page(title: "Sign-in error", body: "<h1>Sign-in error</h1><p role=\"alert\">\(escape(message))</p>")
    }
}
