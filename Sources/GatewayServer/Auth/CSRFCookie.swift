import GatewayCore
import HTTPTypes

/// The cookie that binds a form's CSRF token to one browser: the token is an HMAC over the
/// form's binding AND this cookie's random value, so a token lifted from one browser is
/// worthless in another (login CSRF, session fixation through a planted form post).
///
/// Over https it is a `__Host-` cookie (Secure, Path=/, no Domain: only this origin can
/// set or read it); an `http://` issuer (development) gets a plain `gw-csrf` cookie,
/// because browsers refuse `Secure` cookies there. HttpOnly, SameSite=Strict, 15 minutes.
///
/// ``federation(issuer:)`` is the same kind of cookie for a sign-in through an identity
/// provider: SameSite=Lax, because the provider's redirect back is a cross-site navigation
/// that would not carry a Strict cookie, and 10 minutes.
struct CSRFCookie: Sendable {
    let secure: Bool
    private let baseName: String
    private let sameSite: String
    let maxAge: Int

    init(issuer: String) {
        self.init(issuer: issuer, baseName: "gw-csrf", sameSite: "Strict", maxAge: 900)
    }

    private init(issuer: String, baseName: String, sameSite: String, maxAge: Int) {
        secure = issuer.hasPrefix("https://")
        self.baseName = baseName
        self.sameSite = sameSite
        self.maxAge = maxAge
    }

    /// The cookie binding a sign-in at an identity provider to the browser that started it.
    static func federation(issuer: String) -> CSRFCookie {
        CSRFCookie(issuer: issuer, baseName: "gw-fed", sameSite: "Lax", maxAge: 600)
    }

    /// The cookie of the operator sign-in page on the admin listener: its own name, so a
    /// tenant's sign-in on the same host (cookies ignore ports) never overwrites it.
    static func operators(issuer: String) -> CSRFCookie {
        CSRFCookie(issuer: issuer, baseName: "gw-admin-csrf", sameSite: "Strict", maxAge: 900)
    }

    var name: String { secure ? "__Host-" + baseName : baseName }

    /// A fresh random value (the shape ``value(in:)`` accepts).
    static func newValue() -> String {
        BrowserSignIn.newBrowserValue()
    }

    /// The value the browser sent, when it has the shape of one of ours.
    func value(in headers: HTTPFields) -> String? {
        CookieHeader.value(named: name, in: headers) { value in
            value.utf8.count == 22
                && value.utf8.allSatisfy {
                    ASCIIByte.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                }
        }
    }

    /// The browser's value, or a new one.
    func valueOrNew(in headers: HTTPFields) -> String {
        value(in: headers) ?? Self.newValue()
    }

    /// The `Set-Cookie` header value.
    func setCookie(_ value: String, maxAge: Int? = nil) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(maxAge ?? self.maxAge); HttpOnly; SameSite=\(sameSite)"
            + (secure ? "; Secure" : "")
    }
}
