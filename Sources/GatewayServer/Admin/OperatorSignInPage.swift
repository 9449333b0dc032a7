import Crypto
import Foundation
import GatewayCore
import HTTPTypes

/// The operator realm's sign-in page (issue 48): the tenants' sign-in page's look and rules
/// (self-contained HTML, no external asset, one hashed script, labelled fields), with the
/// optional one-time-code field of a second factor, and the CSRF token bound to this
/// browser's ``CSRFCookie/operators(issuer:)`` cookie.
enum OperatorSignInPage {
    static let title = "Sign in to SuperApp Gateway administration"

    /// The form carrying the authorization request as hidden fields.
    static func form(_ request: OperatorAuthorizationRequest, csrf: String, username: String?, error: String?) -> String
    {
        let hidden: [(String, String?)] = [
            ("response_type", request.responseType), ("client_id", request.clientID),
            ("redirect_uri", request.redirectURI), ("state", request.state), ("code_challenge", request.codeChallenge),
            ("code_challenge_method", request.codeChallengeMethod), ("csrf_token", csrf),
        ]
        let fields = hidden.compactMap { name, value in
            value.map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(LoginPage.escape($0))\">" }
        }.joined()
        let alert = error.map { "<p class=\"error\" role=\"alert\" id=\"error\">\(LoginPage.escape($0))</p>" } ?? ""
        let invalid = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"error\""
        let focusName = username == nil ? " autofocus" : ""
        let focusPassword = username == nil ? "" : " autofocus"
        return LoginPage.page(
            title: title,
            body: """
                <h1>\(LoginPage.escape(title))</h1>\(alert)
                <form method="post" action="/admin/oauth2/authorize">\(fields)
                <label for="username">Operator name</label><input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="\(LoginPage.escape(username ?? ""))"\(focusName)>
                <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required\(invalid)\(focusPassword)>
                <label class="check"><input type="checkbox" id="show-password"> Show password</label>
                <label for="otp">One-time code (if you enrolled an authenticator app)</label><input id="otp" name="otp" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code">
                <button type="submit">Sign in</button></form><script>\(LoginPage.showPasswordScript)</script>
                """)
    }

    /// The device page (RFC 8628 §3.3): the code the terminal shows, then the same credentials.
    static func deviceForm(userCode: String?, csrf: String, username: String?, error: String?) -> String {
        let alert = error.map { "<p class=\"error\" role=\"alert\" id=\"error\">\(LoginPage.escape($0))</p>" } ?? ""
        let title = "Sign in a device to SuperApp Gateway administration"
        return LoginPage.page(
            title: title,
            body: """
                <h1>\(LoginPage.escape(title))</h1>\(alert)
                <p>Enter the code your terminal shows, then sign in. Only do this for a sign-in you started.</p>
                <form method="post" action="/admin/oauth2/device"><input type="hidden" name="csrf_token" value="\(LoginPage.escape(csrf))">
                <label for="user_code">Code</label><input id="user_code" name="user_code" autocomplete="off" autocapitalize="characters" spellcheck="false" required value="\(LoginPage.escape(userCode ?? ""))"\(userCode == nil ? " autofocus" : "")>
                <label for="username">Operator name</label><input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="\(LoginPage.escape(username ?? ""))"\(userCode == nil ? "" : " autofocus")>
                <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
                <label class="check"><input type="checkbox" id="show-password"> Show password</label>
                <label for="otp">One-time code (if you enrolled an authenticator app)</label><input id="otp" name="otp" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code">
                <button type="submit">Sign in the device</button></form><script>\(LoginPage.showPasswordScript)</script>
                """)
    }

    /// The device page after an approval.
    static let deviceApproved = LoginPage.page(
        title: "Device signed in",
        body: "<h1>Device signed in</h1><p>Return to your terminal: it is signed in. You can close this page.</p>")

    /// What both pages say for a refused credential check.
    static func refusal(_ outcome: OperatorSignInOutcome) -> String {
        switch outcome {
        case .redirect: ""
        case .failed: "The name or password is wrong."
        case .codeRequired: "Enter the one-time code from your authenticator app, with your password again."
        case .codeFailed: "The one-time code is wrong or was used already."
        case .secondFactorNotEnrolled:
            "A second factor is required: ask a platform admin to run gatewayctl operator totp NAME."
        case .throttled(let retryAfter): "Too many attempts. Try again in \(retryAfterSeconds(retryAfter)) seconds."
        }
    }

    /// A throttle's wait as whole seconds for `Retry-After` (at least 1, rounded up).
    static func retryAfterSeconds(_ wait: Duration) -> Int {
        max(1, Int((wait.wholeMilliseconds + 999) / 1000))
    }

    /// Whether `token` is the CSRF token of the operator cookie `headers` carry.
    static func csrfHolds(_ token: String?, headers: HTTPFields, issuer: String) -> Bool {
        guard let token, let browser = CSRFCookie.operators(issuer: issuer).value(in: headers) else { return false }
        return ConstantTime.equals(token, csrfToken(cookie: browser))
    }


    /// The CSRF token of a browser's cookie value: only a page that read the cookie's value
    /// (this origin, HttpOnly) can send it.
    static func csrfToken(cookie: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data("operator-sign-in:\(cookie)".utf8))))
    }

    /// The realm's issuer: `<publicBase>/admin` when the listener's public address is
    /// configured (`admin.public.base.url`), else as this request reached the listener,
    /// `http://<Host>/admin`; a `Host` that is not a plain host[:port] falls back to the
    /// loopback address.
    static func issuer(authority: String?, publicBase: String? = nil) -> String {
        if let publicBase { return (publicBase.hasSuffix("/") ? String(publicBase.dropLast()) : publicBase) + "/admin" }
        let host =
            authority.flatMap { value in
                value.utf8.count <= 255 && !value.isEmpty
                    && value.utf8.allSatisfy { ASCIIByte.isLetterOrDigit($0) || ".-:[]".utf8.contains($0) }
                    ? value : nil
            } ?? "127.0.0.1"
        return "http://\(host)/admin"
    }
}
