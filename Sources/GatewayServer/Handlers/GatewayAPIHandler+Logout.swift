import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func getLogout(_ input: Operations.GetLogout.Input) async throws -> Operations.GetLogout.Output {
        let q = input.query
        switch try await logout(idTokenHint: q.idTokenHint, postLogoutRedirectURI: q.postLogoutRedirectUri, state: q.state, clientID: q.clientId) {
        case .page(let html): return .ok(.init(body: .html(.init(html))))
        case .redirect(let location): return .found(.init(headers: .init(location: location)))
        case .refused(let html): return .forbidden(.init(body: .html(.init(html))))
        case .malformed(let html): return .badRequest(.init(body: .html(.init(html))))
        }
    }

    func postLogout(_ input: Operations.PostLogout.Input) async throws -> Operations.PostLogout.Output {
        var f = Components.Schemas.LogoutForm()
        if case .urlEncodedForm(let form) = input.body { f = form }
        switch try await logout(idTokenHint: f.idTokenHint, postLogoutRedirectURI: f.postLogoutRedirectUri, state: f.state, clientID: f.clientId) {
        case .page(let html): return .ok(.init(body: .html(.init(html))))
        case .redirect(let location): return .found(.init(headers: .init(location: location)))
        case .refused(let html): return .forbidden(.init(body: .html(.init(html))))
        case .malformed(let html): return .badRequest(.init(body: .html(.init(html))))
        }
    }

    private enum LogoutOutcome {
        case page(String)
        case redirect(String)
        case refused(String)
        case malformed(String)
    }

    /// RP-initiated logout: the id_token_hint (signed by this tenant; may be expired) names
    /// the user and client; every refresh family of that user in the tenant is revoked.
    private func logout(idTokenHint: String?, postLogoutRedirectURI: String?, state: String?, clientID: String?) async throws -> LogoutOutcome {
        let tenant = try RequestScope.requireTenant()
        let issuer = issuerBase.issuer(tenantID: tenant.id)
        if (idTokenHint?.count ?? 0) > 2048 || (postLogoutRedirectURI?.count ?? 0) > 1024 || (state?.count ?? 0) > 512 || (clientID?.count ?? 0) > 128 {
            return .malformed(LoginPage.error("A logout parameter is too long."))
        }
        var subject: String?
        var audience = clientID
        if let hint = idTokenHint {
            guard let parsed = try? JWS.parse(hint), let kid = parsed.header["kid"]?.stringValue,
                  let key = try await auth.keys.verificationKey(tenantID: tenant.id, kid: kid), (try? JWS.verify(parsed, key: key)) != nil,
                  case .object(let claims)? = try? JSONValue.decode(parsed.payload), claims["iss"]?.stringValue == issuer,
                  let sub = claims["sub"]?.stringValue, let aud = claims["aud"]?.stringValue
            else { return .refused(LoginPage.error("The id_token_hint is not valid for this tenant.")) }
            if let clientID, clientID != aud { return .refused(LoginPage.error("client_id does not match the id_token_hint.")) }
            subject = sub
            audience = aud
        }
        var location: String?
        if let uri = postLogoutRedirectURI {
            guard let clientID = audience, let client = try await auth.clients.client(tenantID: tenant.id, clientID: clientID), client.acceptsPostLogoutRedirect(uri) else {
                return .refused(LoginPage.error("The post_logout_redirect_uri is not registered for this client."))
            }
            location = AuthorizationServer.redirect(uri, ["state": state])
        }
        if let subject { try await auth.tokens.revokeSessions(tenantID: tenant.id, subject: subject) }
        if let location { return .redirect(location) }
        return .page(LoginPage.page(title: "Signed out", body: "<h1>You are signed out</h1>"))
    }
}
