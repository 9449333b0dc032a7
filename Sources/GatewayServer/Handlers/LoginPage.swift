import Crypto
import Foundation
import GatewayCore

/// The server-rendered sign-in and error pages: self-contained HTML (no external assets, no
/// script; inline style allowed by the CSP's `style-src 'unsafe-inline'` only), labelled
/// fields, localized (``LoginTexts``), themed with the tenant's name and colour.
enum LoginPage {
    /// Sent with every page.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src '\(showPasswordScriptHash)' '\(PasskeyPageScript.hash)'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// The page's one script: the show-password checkbox. Allowed by its hash, so no other
    /// script (inline or injected) can run; without it the form still works.
    static let showPasswordScript =
        "document.getElementById('show-password').addEventListener('change',function(e){document.getElementById('password').type=e.target.checked?'text':'password'})"
    static let showPasswordScriptHash =
        "sha256-" + Data(SHA256.hash(data: Data(showPasswordScript.utf8))).base64EncodedString()

    /// The sign-in form's policy. The form posts to this origin, whose answer redirects to the
    /// client; browsers hold that redirect to `form-action` too (a real Chromium refused it
    /// with `'self'` alone), so the validated redirect URI's origin (or custom scheme) is allowed.
    /// With a tenant logo, `img-src` allows that one https origin (nothing else loads).
    static func contentSecurityPolicy(redirectingTo redirectURI: String, logoURL: String? = nil) -> String {
        var policy = contentSecurityPolicy
        if let source = formActionSource(redirectURI) {
            policy = policy.replacingOccurrences(of: "form-action 'self'", with: "form-action 'self' \(source)")
        }
        if let logo = logoURL.flatMap(logoSource) {
            policy = policy.replacingOccurrences(of: "; form-action", with: "; img-src \(logo); form-action")
        }
        return policy
    }

    /// The `img-src` source of a logo URL: its `https://host[:port]`; nil for anything else.
    static func logoSource(_ url: String) -> String? {
        guard let source = formActionSource(url), source.hasPrefix("https://") else { return nil }
        return source
    }

    /// `https://host[:port]`, or `scheme:` for an app's custom scheme; nil when the URI has
    /// characters a policy cannot carry.
    static func formActionSource(_ uri: String) -> String? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            !scheme.isEmpty,
            scheme.unicodeScalars.allSatisfy({
                CharacterSet.alphanumerics.contains($0) && $0.isASCII || "+-.".unicodeScalars.contains($0)
            })
        else { return nil }
        guard scheme == "http" || scheme == "https" else { return scheme + ":" }
        guard let host = components.percentEncodedHost, !host.isEmpty,
            host.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-:[]".unicodeScalars.contains($0))
            })
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

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

    /// Mobile first: nothing wider than the viewport from 320 px up (`box-sizing`), 44 px touch
    /// targets, the tenant's primary colour on the button, dark mode from the system setting.
    private static func style(_ theme: Theme) -> String {
        // Theme colours are validated `#RRGGBB` (TenantRevision); escaped anyway.
        let primary = escape(theme.primaryColor)
        return "*,*::before,*::after{box-sizing:border-box}"
            + "html{-webkit-text-size-adjust:100%}"
            + "body{font-family:system-ui,sans-serif;line-height:1.5;max-width:26rem;margin:0 auto;padding:2rem 1rem;color:#1b1b1b;background:#fff}"
            + "h1{font-size:1.5rem;margin:0 0 1rem;overflow-wrap:anywhere}"
            + "label{display:block;margin-top:1rem;font-weight:600}"
            + "input{display:block;width:100%;min-height:44px;margin-top:.25rem;padding:.5rem .75rem;font-size:1rem;border:1px solid #767676;border-radius:.375rem;background:inherit;color:inherit}"
            + "input:focus{outline:3px solid \(primary);outline-offset:1px}"
            + ".check{display:flex;align-items:center;gap:.5rem;min-height:44px;margin-top:.5rem;font-weight:400}.check input{width:auto;min-height:0;margin:0}"
            + "button{display:block;width:100%;min-height:44px;margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem;font-weight:600;border:0;border-radius:.375rem;background:\(primary);color:#fff;cursor:pointer}"
            + "button.secondary{margin-top:.75rem;background:transparent;color:inherit;border:2px solid \(primary)}"
            + ".field-error{margin:.25rem 0 0;color:#b00020;overflow-wrap:anywhere}"
            + ".idp{display:block;min-height:44px;margin-top:1rem;padding:.6rem 1.2rem;text-align:center;font-weight:600;border:2px solid \(primary);border-radius:.375rem;color:inherit;text-decoration:none}"
            + ".logo{display:block;max-width:100%;max-height:64px;margin:0 0 1rem}"
            + ".error{color:#b00020;background:#fdecee;border-radius:.375rem;padding:.5rem .75rem;overflow-wrap:anywhere}"
            + ".note{background:#eef3f8;border-radius:.375rem;padding:.5rem .75rem;overflow-wrap:anywhere}"
            + "@media (prefers-color-scheme:dark){body{color:#eee;background:#121212}input{border-color:#999}.error{color:#ffb4ab;background:#3b1214}.note{background:#1e2a36}}"
    }

    static func page(title: String, body: String, locale: String = "en", theme: Theme = Theme()) -> String {
        """
        <!doctype html>
        <html lang="\(escape(locale))"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>\(escape(title))</title><style>\(style(theme))</style></head>
        <body><main>\(body)</main></body></html>
        """
    }

    /// The sign-in form carrying every authorization parameter as hidden fields, in the
    /// negotiated language and the tenant's colours. After a failed attempt the error is
    /// announced (`role=alert`) and the password field takes the focus.
    /// `providers` are the tenant's identity providers as "Continue with …" links (name, href).
    static func form(
        tenant: Tenant, texts: LoginTexts, action: String, request: AuthorizationRequest, csrf: String,
        username: String?, error: String?,
        providers: [(name: String, href: String)] = []
    ) -> String {
        let fields = hiddenFields(request, csrf: csrf)
        let links = providers.map {
            "<a class=\"idp\" href=\"\(escape($0.href))\">\(escape(texts.text("login.continue_with", ["name": $0.name])))</a>"
        }.joined()
        let alert = alertParagraph(error)
        let invalid = invalidAttributes(error)
        let title = texts.text("login.title", ["tenant": tenant.displayName])
        return page(
            title: title,
            body: """
                \(logo(tenant))<h1>\(escape(title))</h1>\(alert)
                <form method="post" action="\(escape(action))">\(fields)
                <label for="username">\(escape(texts.text("login.username")))</label><input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="\(escape(username ?? ""))"\(error == nil ? " autofocus" : "")>
                <label for="password">\(escape(texts.text("login.password")))</label><input id="password" name="password" type="password" autocomplete="current-password" required\(invalid)\(error == nil ? "" : " autofocus")>
                <label class="check"><input type="checkbox" id="show-password"> \(escape(texts.text("login.show_password")))</label>
                <button type="submit">\(escape(texts.text("login.submit")))</button></form>\(links)<script>\(showPasswordScript)</script>
                """, locale: texts.locale, theme: tenant.theme)
    }

    /// The second step for a user with a TOTP second factor: one numeric field for the code
    /// (`autocomplete=one-time-code`, so phones offer a code they received), the same hidden
    /// authorization parameters, and the `auth_session` of the pending sign-in.
    static func otpForm(
        tenant: Tenant, texts: LoginTexts, action: String, request: AuthorizationRequest, csrf: String,
        authSession: String, error: String?
    ) -> String {
        let fields =
            hiddenFields(request, csrf: csrf)
            + "<input type=\"hidden\" name=\"auth_session\" value=\"\(escape(authSession))\">"
        let invalid = invalidAttributes(error)
        let title = texts.text("login.otp.title")
        return page(
            title: title,
            body: """
                \(logo(tenant))<h1>\(escape(title))</h1>\(alertParagraph(error))
                <p>\(escape(texts.text("login.otp.hint", ["tenant": tenant.displayName])))</p>
                <form method="post" action="\(escape(action))">\(fields)
                <label for="otp">\(escape(texts.text("login.otp.label")))</label><input id="otp" name="otp" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required autofocus\(invalid)>
                <button type="submit">\(escape(texts.text("login.otp.submit")))</button></form>
                """, locale: texts.locale, theme: tenant.theme)
    }

    /// The consent page of a third-party client: who asks (its id and its redirect URI's
    /// host), each asked scope in words, and two buttons posting `consent=allow` or `deny` with
    /// the same hidden authorization parameters and the `consent_session`.
    static func consentForm(
        tenant: Tenant, texts: LoginTexts, action: String, request: AuthorizationRequest, csrf: String,
        consent: BrowserSignIn.ConsentScreen
    ) -> String {
        let fields =
            hiddenFields(request, csrf: csrf)
            + "<input type=\"hidden\" name=\"consent_session\" value=\"\(escape(consent.session))\">"
        let title = texts.text("login.consent.title", ["client": consent.clientID])
        let known: Set<String> = ["openid", "profile", "email", "phone", "offline_access"]
        let items = consent.scopes.map { scope in
            let text =
                known.contains(scope)
                ? texts.text("login.consent.scope.\(scope)", ["tenant": tenant.displayName])
                : texts.text("login.consent.scope.other", ["scope": scope])
            return "<li>\(escape(text))</li>"
        }.joined()
        let hint = texts.text("login.consent.hint", ["client": consent.clientID, "host": consent.clientHost])
        return page(
            title: title,
            body: """
                \(logo(tenant))<h1>\(escape(title))</h1>
                <p>\(escape(hint))</p><ul class="scopes">\(items)</ul>
                <form method="post" action="\(escape(action))">\(fields)
                <button type="submit" name="consent" value="allow" autofocus>\(escape(texts.text("login.consent.allow")))</button>
                <button type="submit" name="consent" value="deny" class="secondary">\(escape(texts.text("login.consent.deny")))</button></form>
                """, locale: texts.locale, theme: tenant.theme)
    }

    /// Every authorization parameter of `request` and the CSRF token, as hidden inputs.
    private static func hiddenFields(_ request: AuthorizationRequest, csrf: String) -> String {
        let hidden: [(String, String?)] = [
            ("response_type", request.responseType), ("client_id", request.clientID),
            ("redirect_uri", request.redirectURI),
            ("scope", request.scope), ("state", request.state), ("nonce", request.nonce),
            ("code_challenge", request.codeChallenge),
            ("code_challenge_method", request.codeChallengeMethod), ("request_uri", request.requestURI),
            ("ui_locales", request.uiLocales), ("csrf_token", csrf),
        ]
        return hidden.compactMap { name, value in
            value.map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(escape($0))\">" }
        }.joined()
    }

    /// What marks the field an error is about: invalid, described by the error paragraph.
    private static func invalidAttributes(_ error: String?) -> String {
        error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"error\""
    }

    /// The announced error paragraph (`role=alert`), or nothing.
    /// A note about the screen that is no error (`role=status`: announced politely), or nothing.
    static func noteParagraph(_ note: String?) -> String {
        note.map { "<p class=\"note\" role=\"status\">\(escape($0))</p>" } ?? ""
    }

    static func alertParagraph(_ error: String?) -> String {
        error.map { "<p class=\"error\" role=\"alert\" id=\"error\">\(escape($0))</p>" } ?? ""
    }

    /// The tenant's logo: only an https URL the CSP can name (the validator allows no other).
    static func logo(_ tenant: Tenant) -> String {
        tenant.theme.logoURL.flatMap { url in
            logoSource(url).map { _ in
                "<img class=\"logo\" src=\"\(escape(url))\" alt=\"\(escape(tenant.displayName))\">"
            }
        } ?? ""
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

    static func error(_ message: String, texts: LoginTexts = LoginTexts(locale: "en")) -> String {
        let title = texts.text("login.error.title")
        return page(
            title: title, body: "<h1>\(escape(title))</h1><p class=\"error\" role=\"alert\">\(escape(message))</p>",
            locale: texts.locale)
    }
}
