import GatewayCore
import HTTPTypes

/// The cookie holding a browser's single sign-on session at one tenant (issue 63 §6): its value
/// names a ``BrowserSession`` in the shared cache (32 random bytes, base64url). One cookie per
/// tenant (`gw-sso-<tenant>`), so signing in at one tenant never signs a browser in or out at
/// another. Over https a `__Host-` cookie (Secure, Path=/, no Domain); HttpOnly;
/// SameSite=Lax, so a client's top-level redirect to `/oauth2/authorize` from its own site
/// carries it (a silent sign-in), while cross-site subrequests and posts do not. It lives as
/// long as the session.
struct SessionCookie: Sendable {
    let secure: Bool
    let name: String

    init(issuer: String, tenantID: String) {
        secure = issuer.hasPrefix("https://")
        name = (secure ? "__Host-" : "") + "gw-sso-" + tenantID
    }

    /// The value the browser sent, when it has the shape of one of ours.
    func value(in headers: HTTPFields) -> String? {
        CookieHeader.value(named: name, in: headers) { Base64URL.isEncoding(String($0), ofByteCount: 32) }
    }

    /// The `Set-Cookie` header value holding `value`.
    func setCookie(_ value: String) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(BrowserSessions.lifetime.components.seconds); HttpOnly; SameSite=Lax"
            + (secure ? "; Secure" : "")
    }
}
