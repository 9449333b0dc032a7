import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func postToken(_ input: Operations.PostToken.Input) async throws -> Operations.PostToken.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else { throw GatewayProblem.invalidRequest("expected a form") }
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        do {
            let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
            let client = try await services.auth.authenticateClient(tenantID: tenant.id, clientID: clientID, secret: secret)
            // Clients registered with --dpop-nonce get a fresh nonce with every answer.
            let nonce = client.dpopNonceRequired == true ? services.dpopNonces.current(tenantID: tenant.id) : nil
            let jkt: String?
            do {
                jkt = try await serverProof(input.headers.dPoP, tenantID: tenant.id, url: issuer + "/oauth2/token", required: client.dpopBound, nonce: nonce)
            } catch TokenRejection.dpopNonceRequired {
                return .badRequest(.init(headers: .init(cacheControl: "no-store", dPoPNonce: nonce),
                                         body: .json(Self.errorBody(OAuthError("use_dpop_nonce", TokenRejection.dpopNonceRequired.detail)))))
            }
            let response: TokenResponse
            switch form.grantType {
            case "authorization_code":
                guard let code = form.code, !code.isEmpty else { throw OAuthError.invalidRequest("code is required") }
                response = try await services.auth.tokens.exchangeCode(issuer: issuer, client: client, code: code, redirectURI: form.redirectUri, verifier: form.codeVerifier, dpopJKT: jkt)
            case "refresh_token":
                guard let refresh = form.refreshToken, !refresh.isEmpty else { throw OAuthError.invalidRequest("refresh_token is required") }
                response = try await services.auth.tokens.refresh(issuer: issuer, client: client, refreshToken: refresh, dpopJKT: jkt)
            case nil:
                throw OAuthError.invalidRequest("grant_type is required")
            default:
                throw OAuthError.unsupportedGrantType("only authorization_code and refresh_token are supported")
            }
            services.metrics.recordTokenIssued(tenant: tenant.id, grantType: form.grantType ?? "")
            let body = Components.Schemas.TokenResponse(accessToken: response.accessToken, tokenType: .init(rawValue: response.tokenType) ?? .bearer,
                                                        expiresIn: response.expiresIn, refreshToken: response.refreshToken, idToken: response.idToken, scope: response.scope)
            return .ok(.init(headers: .init(cacheControl: "no-store", pragma: "no-cache", dPoPNonce: nonce), body: .json(body)))
        } catch let error as OAuthError {
            if error.status == 401 { return .unauthorized(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.errorBody(error)))) }
            return .badRequest(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.errorBody(error))))
        }
    }

    func revokeToken(_ input: Operations.RevokeToken.Input) async throws -> Operations.RevokeToken.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else { throw GatewayProblem.invalidRequest("expected a form") }
        do {
            let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
            let client = try await services.auth.authenticateClient(tenantID: tenant.id, clientID: clientID, secret: secret)
            guard let token = form.token, !token.isEmpty else { throw OAuthError.invalidRequest("token is required") }
            try await services.auth.tokens.revoke(token: token, client: client, verifier: services.auth.verifier, issuer: services.issuerBase.issuer(tenantID: tenant.id))
            return .ok(.init(headers: .init(cacheControl: "no-store")))
        } catch let error as OAuthError {
            if error.status == 401 { return .unauthorized(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.errorBody(error)))) }
            return .badRequest(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.errorBody(error))))
        }
    }

    func introspectToken(_ input: Operations.IntrospectToken.Input) async throws -> Operations.IntrospectToken.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else { throw GatewayProblem.invalidRequest("expected a form") }
        do {
            let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
            _ = try await services.auth.authenticateClient(tenantID: tenant.id, clientID: clientID, secret: secret, requireConfidential: true)
            guard let token = form.token, !token.isEmpty else { throw OAuthError.invalidRequest("token is required") }
            let inactive = Operations.IntrospectToken.Output.ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(active: false))))
            let issuer = services.issuerBase.issuer(tenantID: tenant.id)
            guard let claims = try? await services.auth.verifier.verify(token, issuer: issuer, tenantID: tenant.id), claims.expiresAt > Date() else {
                guard let miniApp = try? await services.auth.verifier.verifyMiniAppToken(token, issuer: issuer, tenantID: tenant.id) else { return inactive }
                return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(
                    active: true, scope: miniApp.scope, sub: miniApp.subject, aud: miniApp.audience, azp: miniApp.miniAppID,
                    exp: Int64(miniApp.expiresAt.timeIntervalSince1970), iat: Int64(miniApp.issuedAt.timeIntervalSince1970),
                    iss: miniApp.issuer, jti: miniApp.jti, tokenType: "Bearer"))))
            }
            return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(
                active: true, scope: claims.scope, clientId: claims.clientID, sub: claims.subject,
                exp: Int64(claims.expiresAt.timeIntervalSince1970), iat: Int64(claims.issuedAt.timeIntervalSince1970),
                iss: claims.issuer, jti: claims.jti, tokenType: claims.dpopJKT == nil ? "Bearer" : "DPoP"))))
        } catch let error as OAuthError {
            if error.status == 401 { return .unauthorized(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.errorBody(error)))) }
            return .badRequest(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.errorBody(error))))
        }
    }

    /// The key thumbprint of a DPoP proof sent to an authorization-server endpoint at `url`
    /// (nil without one, unless `required`: clients registered with `--dpop`). With `nonce`
    /// (the client's current server nonce) the proof must carry a valid one, else
    /// ``TokenRejection/dpopNonceRequired`` for the caller to answer `use_dpop_nonce`.
    func serverProof(_ proof: String?, tenantID: String, url: String, required: Bool, nonce: String? = nil) async throws -> String? {
        guard let proof else {
            if required { throw OAuthError.invalidDPoPProof("this client must present a DPoP proof") }
            return nil
        }
        do {
            return try await services.auth.dpop.verify(proof: proof, method: "POST", url: url, accessToken: nil, nonce: nonce == nil ? nil : services.dpopNonces.validator(tenantID: tenantID))
        } catch let rejection as TokenRejection where rejection != .dpopNonceRequired {
            throw OAuthError.invalidDPoPProof(rejection.detail)
        }
    }
}
