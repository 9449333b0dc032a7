import Foundation

/// The client-credentials grant (RFC 6749 §4.4) for senders: a mini app's backend or the
/// tenant's own servers get an access token that names the client, not a user. Only
/// confidential clients registered for the grant and for at least one mini app get one; its
/// audience is the tenant's sender API (``TokenService/senderAudience(issuer:)``), so user
/// endpoints refuse it, and its scopes are sender scopes only.
public enum ClientCredentials {
    /// `grant_type=client_credentials`.
    public static let grantType = "client_credentials"
    /// Scopes a sender token may carry.
    public static let senderScopes: Set<String> = ["notifications:send"]

    /// The scopes granted for `requested` (space-separated; nil: every sender scope the
    /// client is registered for), after checking the client may use the grant.
    /// - Throws: ``OAuthError`` `unauthorized_client` (a public client, one not registered
    ///   for the grant or for any mini app), `invalid_scope`.
    public static func grantedScopes(for client: OAuthClient, requested: String?) throws -> [String] {
        guard client.confidential else {
            throw OAuthError.unauthorizedClient("client_credentials is for confidential clients only")
        }
        guard client.allows(grantType: grantType) else {
            throw OAuthError.unauthorizedClient("this client is not registered for client_credentials")
        }
        guard !(client.miniApps ?? []).isEmpty else {
            throw OAuthError.unauthorizedClient("this client is registered for no mini app (gatewayctl client update --miniapp)")
        }
        let registered = Set(client.allowedScopes).intersection(senderScopes)
        guard let requested, !requested.isEmpty else {
            guard !registered.isEmpty else { throw OAuthError.invalidScope("this client has no sender scope") }
            return registered.sorted()
        }
        let asked = requested.split(separator: " ").map(String.init)
        if let refused = asked.first(where: { !registered.contains($0) }) {
            throw OAuthError.invalidScope("scope \(refused.prefix(64)) is not a sender scope of this client")
        }
        return Array(Set(asked)).sorted()
    }
}

/// A sender token's claims, as ``TokenVerifier/verifySenderToken(_:issuer:tenantID:)`` found them.
public struct SenderTokenClaims: Sendable, Equatable {
    public var clientID: String
    public var tenantID: String
    public var scopes: Set<String>
    /// The mini apps the client sends for (when the token was issued).
    public var miniApps: Set<String>
    public var jti: String
    public var expiresAt: Date

    public init(clientID: String, tenantID: String, scopes: Set<String>, miniApps: Set<String>, jti: String, expiresAt: Date) {
        self.clientID = clientID
        self.tenantID = tenantID
        self.scopes = scopes
        self.miniApps = miniApps
        self.jti = jti
        self.expiresAt = expiresAt
    }
}

extension TokenService {
    /// The audience of sender tokens: the tenant's sender API, never the user API's.
    public static func senderAudience(issuer: String) -> String { issuer + "/senders" }

    /// A sender token for `client` with `scopes` (no refresh token, no ID token).
    public func senderToken(issuer: String, client: OAuthClient, scopes: [String]) async throws -> TokenResponse {
        let key = try await keys.signingKey(tenantID: client.tenantID)
        let iat = Int64(now().timeIntervalSince1970)
        let exp = iat + Int64(client.accessTokenLifetimeSeconds)
        let claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(client.clientID), "aud": .string(Self.senderAudience(issuer: issuer)),
            "client_id": .string(client.clientID), "iat": .number(Double(iat)), "exp": .number(Double(exp)),
            "jti": .string(Base64URL.random(byteCount: 16)), "scope": .string(scopes.joined(separator: " ")),
            "tenant": .string(client.tenantID), "mini_apps": .array((client.miniApps ?? []).map(JSONValue.string)),
        ]
        return TokenResponse(
            accessToken: try JWS.sign(claims: claims, typ: "at+jwt", signingKey: key), tokenType: "Bearer",
            expiresIn: client.accessTokenLifetimeSeconds, refreshToken: "", idToken: "",
            scope: scopes.joined(separator: " "))
    }
}

extension TokenVerifier {
    /// A sender token of this tenant: signed by an active key of the tenant, the tenant's
    /// issuer, the sender audience, `sub` = `client_id`, not expired, not revoked.
    public func verifySenderToken(_ token: String, issuer: String, tenantID: String) async throws -> SenderTokenClaims {
        let c = try await signedClaims(token, tenantID: tenantID).claims
        guard c["iss"]?.stringValue == issuer, c["tenant"]?.stringValue == tenantID,
            c["aud"]?.stringValue == TokenService.senderAudience(issuer: issuer),
            let clientID = c["client_id"]?.stringValue, c["sub"]?.stringValue == clientID,
            let jti = c["jti"]?.stringValue, let exp = c["exp"]?.int64Value
        else { throw TokenRejection.invalidToken("not a sender token of this tenant") }
        let expiresAt = try await requireLive(exp: exp, jti: jti, tenantID: tenantID)
        var miniApps: [String] = []
        if case .array(let list)? = c["mini_apps"] {
            for item in list { if let app = item.stringValue { miniApps.append(app) } }
        }
        return SenderTokenClaims(
            clientID: clientID, tenantID: tenantID,
            scopes: Set((c["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)),
            miniApps: Set(miniApps), jti: jti, expiresAt: expiresAt)
    }
}
