import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func postToken(_ input: Operations.PostToken.Input) async throws -> Operations.PostToken.Output {
        let tenant = try RequestScope.requireTenant()
        // TokenFormMiddleware reads the form from the request's bytes; the generated decoder
        // only sees it when the body is not ASCII.
        guard case .urlEncodedForm(let decoded) = input.body else {
            throw GatewayProblem.invalidRequest("expected a form")
        }
        let form = PreparsedTokenForm.current ?? decoded
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
        let assertion = try form.clientAssertion.map {
            try ClientAssertion(
                type: form.clientAssertionType, jwt: $0, audiences: [issuer + "/oauth2/token", issuer])
        }
        let client = try await services.auth.authenticateClient(
            tenantID: tenant.id, clientID: clientID, secret: secret, assertion: assertion)
        // Clients registered with --dpop-nonce get a fresh nonce with every answer.
        let nonce = client.dpopNonceRequired == true ? services.dpopNonces.current(tenantID: tenant.id) : nil
        let jkt: String?
        do {
            jkt = try await services.auth.proofThumbprint(
                input.headers.dPoP, url: issuer + "/oauth2/token", required: client.dpopBound,
                nonce: nonce == nil ? nil : services.dpopNonces.validator(tenantID: tenant.id))
        } catch TokenRejection.dpopNonceRequired {
            return .badRequest(
                .init(
                    headers: .init(cacheControl: "no-store", dPoPNonce: nonce),
                    body: .json(Self.errorBody(OAuthError("use_dpop_nonce", TokenRejection.dpopNonceRequired.detail)))))
        }
        let body: Components.Schemas.TokenResponse
        if form.grantType == TokenExchange.grantType {
            body = try await exchange(form, tenant: tenant, client: client, issuer: issuer, dpopJKT: jkt)
        } else if form.grantType == BackchannelRules.grantType {
            body = try await redeemBackchannel(form, tenant: tenant, client: client, issuer: issuer, dpopJKT: jkt)
        } else {
            let grant = TokenGrant(
                type: form.grantType, code: form.code, redirectURI: form.redirectUri, codeVerifier: form.codeVerifier,
                refreshToken: form.refreshToken, scope: form.scope)
            body = Self.tokenBody(
                try await services.auth.token(for: grant, client: client, issuer: issuer, dpopJKT: jkt),
                issuedTokenType: nil)
        }
        services.metrics.recordTokenIssued(tenant: tenant.id, grantType: form.grantType ?? "")
        return .ok(
            .init(headers: .init(cacheControl: "no-store", pragma: "no-cache", dPoPNonce: nonce), body: .json(body)))
    }

    /// RFC 8693 token exchange: ``TokenExchange`` decides; a mini-app token comes from the
    /// same implementation as `POST /miniapps/{id}/access-token`, its refusals as OAuth errors.
    private func exchange(
        _ form: Components.Schemas.TokenForm, tenant: Tenant, client: OAuthClient, issuer: String, dpopJKT: String?
    ) async throws -> Components.Schemas.TokenResponse {
        let request = TokenExchangeRequest(
            subjectToken: form.subjectToken, subjectTokenType: form.subjectTokenType,
            requestedTokenType: form.requestedTokenType,
            audience: form.audience, resource: form.resource, scope: form.scope)
        switch try await TokenExchange(auth: services.auth, trusted: services.federation.trusted).decide(
            request, client: client, issuer: issuer, dpopJKT: dpopJKT)
        {
        case .gatewayTokens(let response):
            return Self.tokenBody(response, issuedTokenType: TokenExchange.accessTokenType)
        case .miniAppToken(let subject, let miniAppID, let accessRequest):
            let token: MiniAppAccessToken
            do {
                token = try await miniAppAccessToken(
                    tenant: tenant, userID: subject, miniAppID: miniAppID, request: accessRequest)
            } catch let denied as AccessTokenDenied {
                throw denied.type == .authorizationFailure
                    ? OAuthError("access_denied", denied.message, status: 403)
                    : OAuthError("invalid_target", denied.message)
            } catch MiniAppError.miniAppNotFound, MiniAppError.noPublishedVersion {
                throw OAuthError(
                    "invalid_target", "the mini app \(miniAppID) does not exist or has no published version")
            }
            return .init(
                accessToken: token.token, tokenType: .bearer,
                expiresIn: max(0, Int(token.validUntil.timeIntervalSinceNow.rounded(.down))),
                scope: token.scopes.joined(separator: " "), issuedTokenType: TokenExchange.accessTokenType)
        }
    }

    /// CIBA's grant: the tokens once the user approved; the refusals counted by their step.
    private func redeemBackchannel(
        _ form: Components.Schemas.TokenForm, tenant: Tenant, client: OAuthClient, issuer: String, dpopJKT: String?
    ) async throws -> Components.Schemas.TokenResponse {
        do {
            let response = try await services.auth.redeemBackchannel(
                authReqID: form.authReqId, client: client, issuer: issuer, dpopJKT: dpopJKT)
            services.metrics.recordBackchannel(tenant: tenant.id, client: client.clientID, event: "redeemed")
            return Self.tokenBody(response, issuedTokenType: nil)
        } catch let error as OAuthError where error.code == "expired_token" {
            services.metrics.recordBackchannel(tenant: tenant.id, client: client.clientID, event: "expired")
            throw error
        }
    }

    static func tokenBody(_ response: TokenResponse, issuedTokenType: String?) -> Components.Schemas.TokenResponse {
        .init(
            accessToken: response.accessToken, tokenType: .init(rawValue: response.tokenType) ?? .bearer,
            expiresIn: response.expiresIn,
            refreshToken: response.refreshToken.isEmpty ? nil : response.refreshToken,
            idToken: response.idToken.isEmpty ? nil : response.idToken, scope: response.scope,
            issuedTokenType: issuedTokenType)
    }

    func revokeToken(_ input: Operations.RevokeToken.Input) async throws -> Operations.RevokeToken.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else {
            throw GatewayProblem.invalidRequest("expected a form")
        }
        let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
        let client = try await services.auth.authenticateClient(tenantID: tenant.id, clientID: clientID, secret: secret)
        guard let token = form.token, !token.isEmpty else { throw OAuthError.invalidRequest("token is required") }
        try await services.auth.tokens.revoke(
            token: token, client: client, verifier: services.auth.verifier,
            issuer: services.issuerBase.issuer(tenantID: tenant.id))
        return .ok(.init(headers: .init(cacheControl: "no-store")))
    }

    func introspectToken(_ input: Operations.IntrospectToken.Input) async throws -> Operations.IntrospectToken.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else {
            throw GatewayProblem.invalidRequest("expected a form")
        }
        let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
        _ = try await services.auth.authenticateClient(
            tenantID: tenant.id, clientID: clientID, secret: secret, requireConfidential: true)
        guard let token = form.token, !token.isEmpty else { throw OAuthError.invalidRequest("token is required") }
        switch await services.auth.introspect(
            token, issuer: services.issuerBase.issuer(tenantID: tenant.id), tenantID: tenant.id)
        {
        case .inactive:
            return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(active: false))))
        case .miniAppToken(let miniApp):
            return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(
                active: true, scope: miniApp.scope, sub: miniApp.subject, aud: miniApp.audience, azp: miniApp.miniAppID,
                exp: Int64(miniApp.expiresAt.timeIntervalSince1970), iat: Int64(miniApp.issuedAt.timeIntervalSince1970),
                iss: miniApp.issuer, jti: miniApp.jti, tokenType: "Bearer"))))
        case .accessToken(let claims):
            return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(
                active: true, scope: claims.scope, clientId: claims.clientID, sub: claims.subject,
                exp: Int64(claims.expiresAt.timeIntervalSince1970), iat: Int64(claims.issuedAt.timeIntervalSince1970),
                iss: claims.issuer, jti: claims.jti, tokenType: claims.dpopJKT == nil ? "Bearer" : "DPoP"))))
        }
    }
}
