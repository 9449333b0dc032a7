/// The scopes of a tenant's user API. `x-gateway-scopes` in `OpenAPI/gateway.yaml` names and
/// describes every one, each operation's `security` names the one it needs, and the edge
/// refuses a token without it; these constants are what the authorization server grants (a
/// test keeps the two lists equal).
public enum APIScope {
    /// The host app's own surface: home, the catalog, manifests, bundles, previews, the user's
    /// mini apps and profile, analytics.
    public static let host = "host"
    /// What mini apps hold for the user: permissions, mini-app access tokens, secure storage.
    public static let miniAppData = "miniapp-data"
    /// Contacts, messages through mini apps, the inbox, blocks.
    public static let messages = "messages"
    /// The user's push devices.
    public static let devices = "devices"
    /// Listing, approving and denying sign-in requests (CIBA) and a device's switch for them:
    /// only a first-party client's token from the user's own sign-in holds it.
    public static let signInRequests = "sign-in-requests"
    /// My account: the user's identifiers, factors, sessions, password and the account itself;
    /// only a first-party client's token from the user's own sign-in holds it.
    public static let account = "account"

    /// The scopes only the tenant's first-party host app holds, from the user's own sign-in.
    public static let firstPartyOnly = [signInRequests, account]
    /// The host app's surface: what a first-party client (`--first-party`) holds by default.
    public static let hostApp = [host, miniAppData, messages, devices, signInRequests, account]
    /// OpenID Connect's scopes: what a new client holds by default.
    public static let identity = ["openid", "profile", "email"]
    /// Every scope a user's token may carry (the sender scopes are ``ClientCredentials``').
    public static let userScopes = identity + ["offline_access"] + hostApp

    /// What a trusted issuer's token holds at the user API (`gatewayctl issuer trust`): `openid`
    /// (UserInfo, as before scopes), the host app's surface but its sign-in requests and the
    /// account, and the `profile` and `email` it claims. The issuer's own scope names mean
    /// nothing here, so none of them (a claimed `sign-in-requests` included) widens it.
    public static func trustedIssuerScope(claimed: [String]) -> String {
        let identity = ["openid"] + ["profile", "email"].filter(claimed.contains)
        return (identity + hostApp.filter { !firstPartyOnly.contains($0) }).joined(separator: " ")
    }
}

/// How a grant reached the user, which decides whether its tokens may hold the
/// ``APIScope/firstPartyOnly`` scopes.
public enum GrantOrigin: Sendable, Equatable {
    /// The user signed in at this client: the authorization code (browser or federated), the
    /// authorization challenge endpoint, and their refreshes.
    case userSignIn
    /// The user approved a sign-in request on another device (CIBA).
    case backchannel
    /// Another issuer's token exchanged for the tenant's (RFC 8693).
    case tokenExchange
}

extension OAuthClient {
    /// The default scopes of a client registered now: ``APIScope/identity``, and the host app's
    /// surface (``APIScope/hostApp``) for a first-party one.
    public static func newDefaultScopes(firstParty: Bool) -> [String] {
        APIScope.identity + (firstParty ? APIScope.hostApp : [])
    }

    /// Gives a client being registered its default scopes: `given`, else
    /// ``newDefaultScopes(firstParty:)``; a sender (sender scopes only) gets none unless given,
    /// which ``validate()`` then refuses.
    public mutating func registerDefaultScopes(_ given: [String]?) {
        defaultScopes = given ?? (isSender ? nil : Self.newDefaultScopes(firstParty: isFirstParty))
    }

    /// The host app's scopes this client holds, by default or on request.
    public var hostAppScopes: [String] {
        APIScope.hostApp.filter { (defaultScopes ?? []).contains($0) || allowedScopes.contains($0) }
    }

    /// The scopes a grant gives the client: what it asked for (each one of its default or
    /// optional scopes, else `invalid_scope`), plus its defaults, asked or not. `openid` is
    /// always allowed. The ``APIScope/firstPartyOnly`` scopes only reach a first-party client's
    /// tokens from the user's own sign-in: asked for otherwise they are `invalid_scope`; among
    /// the defaults they are left out.
    /// - Returns: the scopes in the order asked, then the defaults not asked for.
    public func grantedScopes(requested: [String], origin: GrantOrigin) throws -> [String] {
        let defaults = defaultScopes ?? []
        let allowed = Set(allowedScopes + defaults + ["openid"])
        if let bad = requested.first(where: { !allowed.contains($0) }) {
            throw OAuthError.invalidScope("scope '\(bad.prefix(64))' is not allowed for this client")
        }
        let mayApprove = isFirstParty && origin == .userSignIn
        if !mayApprove, let held = requested.first(where: APIScope.firstPartyOnly.contains) {
            throw OAuthError.invalidScope(
                "scope '\(held)' is only granted to the tenant's first-party host app when the user signs in on it"
            )
        }
        var granted: [String] = []
        for scope in requested + defaults where !granted.contains(scope) {
            if APIScope.firstPartyOnly.contains(scope), !mayApprove { continue }
            granted.append(scope)
        }
        return granted
    }
}
