/// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): which sessions an
/// `id_token_hint` ends.
///
/// Only an ID token of this tenant's issuer, issued to a client registered with the
/// tenant, is a hint; an access token or a mini-app token is refused, and nothing is
/// revoked. A hint ends its own login session (`sid`): the refresh families of that
/// sign-in and their access tokens, at every client that shares it. Ending every session
/// of the user ("sign out everywhere") is a separate, confirmed step.
public struct SessionLogout: Sendable {
    let verifier: TokenVerifier
    let clients: any ClientStore
    let tokens: TokenService
    let devices: (any DeviceStore)?

    /// - Parameter devices: where the user's push devices are, removed by "sign out everywhere".
    public init(verifier: TokenVerifier, clients: any ClientStore, tokens: TokenService, devices: (any DeviceStore)? = nil) {
        self.verifier = verifier
        self.clients = clients
        self.tokens = tokens
        self.devices = devices
    }

    /// The verified hint.
    /// - Throws: ``OAuthError`` `invalid_request` when it is no ID token of this tenant
    ///   for a registered client, or `client_id` names another client.
    public func hint(
        _ token: String, issuer: String, tenantID: String, clientID: String?
    ) async throws -> IDTokenHintClaims {
        let claims: IDTokenHintClaims
        do {
            claims = try await verifier.verifyIDTokenHint(token, issuer: issuer, tenantID: tenantID)
        } catch let rejection as TokenRejection {
            throw OAuthError.invalidRequest("id_token_hint is not an ID token of this tenant: \(rejection.detail)")
        }
        guard try await clients.client(tenantID: tenantID, clientID: claims.clientID) != nil else {
            throw OAuthError.invalidRequest("id_token_hint was issued to a client this tenant does not know")
        }
        if let clientID, clientID != claims.clientID {
            throw OAuthError.invalidRequest("client_id does not match the id_token_hint")
        }
        return claims
    }

    /// Where to send the browser after logout: `uri` with `state` when `uri` is registered
    /// for the hint's client (else the `client_id` given); nil when no client is named or
    /// `uri` is not one of its post-logout redirect URIs (the caller refuses).
    public func postLogoutRedirect(
        _ uri: String, state: String?, hint: IDTokenHintClaims?, clientID: String?, tenantID: String
    ) async throws -> String? {
        guard let clientID = hint?.clientID ?? clientID,
            let client = try await clients.client(tenantID: tenantID, clientID: clientID),
            client.acceptsPostLogoutRedirect(uri)
        else { return nil }
        return AuthorizationServer.redirect(uri, ["state": state])
    }

    /// Ends the login session the hint names (without `sid`: the user's sessions at the
    /// hint's client).
    public func endSession(_ hint: IDTokenHintClaims, tenantID: String) async throws {
        if let sessionID = hint.sessionID {
            try await tokens.revokeSessions(.session(tenantID: tenantID, subject: hint.subject, sessionID: sessionID))
        } else {
            try await tokens.revokeSessions(.client(tenantID: tenantID, subject: hint.subject, clientID: hint.clientID))
        }
    }

    /// Ends every session of the hint's user in the tenant, at every client, and removes the
    /// user's push devices (a signed-out device must not keep receiving the user's messages).
    public func endEverySession(_ hint: IDTokenHintClaims, tenantID: String) async throws {
        try await tokens.revokeSessions(.subject(tenantID: tenantID, subject: hint.subject))
        try await devices?.removeAll(tenantID: tenantID, userID: hint.subject)
    }
}
