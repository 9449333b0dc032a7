import Foundation
import GatewayCore
import HTTPTypes

/// The console's cookies (issue 49): the session's id, the `state` of a sign-in this browser
/// started (so a code from someone else's sign-in cannot be planted, login CSRF), and the
/// operator's time zone. All `HttpOnly; SameSite=Strict`, `Secure` with the `__Host-` prefix
/// when the realm is https.
struct ConsoleCookie: Sendable {
    let secure: Bool
    private let baseName: String
    private let maxAge: Int?
    /// Whether a value the browser sends has the shape of one of ours.
    private let accepts: @Sendable (String) -> Bool

    private init(secure: Bool, baseName: String, maxAge: Int?, accepts: @escaping @Sendable (String) -> Bool) {
        self.secure = secure
        self.baseName = baseName
        self.maxAge = maxAge
        self.accepts = accepts
    }

    /// The session cookie: no `Max-Age`, so it ends with the browser; the record's idle
    /// timeout ends it on the server whatever the browser keeps.
    static func session(issuer: String) -> ConsoleCookie {
        ConsoleCookie(
            secure: issuer.hasPrefix("https://"), baseName: "gw-console", maxAge: nil, accepts: ConsoleSessions.isID)
    }

    /// The started sign-in's `state`, for as long as the start is remembered.
    static func start(issuer: String) -> ConsoleCookie {
        ConsoleCookie(
            secure: issuer.hasPrefix("https://"), baseName: "gw-console-start",
            maxAge: Int(ConsoleSessions.startLifetime.components.seconds), accepts: ConsoleSessions.isID)
    }

    /// The time zone the operator reads times in (an IANA name), kept a year in this browser.
    static func timeZone(secure: Bool) -> ConsoleCookie {
        ConsoleCookie(
            secure: secure, baseName: "gw-console-tz", maxAge: 31_536_000,
            accepts: { $0.utf8.count <= 64 && TimeZone(identifier: $0) != nil })
    }

    var name: String { secure ? "__Host-" + baseName : baseName }

    /// The value the browser sent, when it has the shape of one of ours.
    func value(in headers: HTTPFields) -> String? {
        CookieHeader.value(named: name, in: headers) { accepts(String($0)) }
    }

    /// `Set-Cookie` for `value`.
    func set(_ value: String) -> String {
        var cookie = "\(name)=\(value); Path=/; HttpOnly; SameSite=Strict"
        if let maxAge { cookie += "; Max-Age=\(maxAge)" }
        return secure ? cookie + "; Secure" : cookie
    }

    /// `Set-Cookie` that removes it.
    var cleared: String {
        "\(name)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0" + (secure ? "; Secure" : "")
    }
}
