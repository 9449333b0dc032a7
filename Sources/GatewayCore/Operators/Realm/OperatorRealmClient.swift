import Foundation

/// The public clients of the operator realm, built in (operators are few and the tools that
/// sign them in ship with the gateway): each authenticates with PKCE alone (RFC 9700 §2.1.1),
/// never a secret.
public struct OperatorRealmClient: Sendable, Equatable {
    /// The client id (`client_id`).
    public var id: String
    /// Accepts `http://127.0.0.1:<any port>/…` and `http://[::1]:<any port>/…`: a native
    /// app's loopback redirect (RFC 8252 §7.3), which binds an ephemeral port per sign-in.
    public var loopbackRedirects: Bool
    /// A path on the realm's own origin that is this client's only redirect (the console's).
    public var ownRedirectPath: String?

    public init(id: String, loopbackRedirects: Bool, ownRedirectPath: String? = nil) {
        self.id = id
        self.loopbackRedirects = loopbackRedirects
        self.ownRedirectPath = ownRedirectPath
    }

    /// `gatewayctl login` (RFC 8252: a loopback listener catches the redirect).
    public static let gatewayctl = OperatorRealmClient(id: "gatewayctl", loopbackRedirects: true)

    /// The operator console (issue 49), served by the admin listener itself.
    public static let console = OperatorRealmClient(
        id: "console", loopbackRedirects: false, ownRedirectPath: "/console/callback")

    /// Every built-in client.
    public static let all: [OperatorRealmClient] = [.gatewayctl, .console]

    /// The origin of the realm `issuer` (`http://host:port/admin` → `http://host:port`).
    public static func origin(ofIssuer issuer: String) -> String {
        issuer.hasSuffix("/admin") ? String(issuer.dropLast("/admin".count)) : issuer
    }

    /// The console's redirect URI for the realm `issuer`.
    public static func consoleRedirect(issuer: String) -> String {
        origin(ofIssuer: issuer) + (console.ownRedirectPath ?? "")
    }

    /// The client with this id; nil: unknown.
    public static func named(_ id: String?) -> OperatorRealmClient? {
        all.first { $0.id == id }
    }

    /// Whether `uri` may receive this client's codes. Loopback: `http`, the IP literal (not
    /// `localhost`, which a hosts file or a resolver can point elsewhere, RFC 8252 §8.3), a
    /// port, no user info, no fragment.
    public func accepts(redirectURI uri: String, issuer: String) -> Bool {
        if let ownRedirectPath { return uri == Self.origin(ofIssuer: issuer) + ownRedirectPath }
        guard loopbackRedirects, uri.utf8.count <= 512, let parts = URLComponents(string: uri), parts.scheme == "http",
            parts.user == nil, parts.password == nil, parts.fragment == nil, parts.port != nil,
            let host = parts.host, host == "127.0.0.1" || host == "[::1]" || host == "::1"
        else { return false }
        return true
    }
}
