import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func getOpenIDConfiguration(
        _ input: Operations.GetOpenIDConfiguration.Input
    ) async throws -> Operations.GetOpenIDConfiguration.Output {
        .ok(.init(body: .json(try serverMetadata())))
    }

    /// RFC 8414, `/t/{tenant}/.well-known/oauth-authorization-server`.
    func getTenantOAuthServerMetadata(
        _ input: Operations.GetTenantOAuthServerMetadata.Input
    ) async throws -> Operations.GetTenantOAuthServerMetadata.Output {
        .ok(.init(body: .json(try serverMetadata())))
    }

    /// RFC 8414 §3.1, `/.well-known/oauth-authorization-server/t/{tenant}` (the tenant is
    /// resolved by ``TenantResolutionMiddleware`` like any tenant path).
    func getOAuthServerMetadata(
        _ input: Operations.GetOAuthServerMetadata.Input
    ) async throws -> Operations.GetOAuthServerMetadata.Output {
        .ok(.init(body: .json(try serverMetadata())))
    }

    /// The metadata of the request's tenant: one document for OpenID Connect Discovery and
    /// RFC 8414.
    private func serverMetadata() throws -> Components.Schemas.ServerMetadata {
        let tenant = try RequestScope.requireTenant()
        let iss = services.issuerBase.issuer(tenantID: tenant.id)
        return Components.Schemas.ServerMetadata(
            issuer: iss,
            authorizationEndpoint: iss + "/oauth2/authorize",
            tokenEndpoint: iss + "/oauth2/token",
            jwksUri: iss + "/.well-known/jwks.json",
            pushedAuthorizationRequestEndpoint: iss + "/oauth2/par",
            authorizationChallengeEndpoint: iss + "/oauth2/authorize-challenge",
            requirePushedAuthorizationRequests: false,
            revocationEndpoint: iss + "/oauth2/revoke",
            introspectionEndpoint: iss + "/oauth2/introspect",
            userinfoEndpoint: iss + "/oauth2/userinfo",
            endSessionEndpoint: iss + "/oauth2/logout",
            responseTypesSupported: ["code"],
            responseModesSupported: ["query"],
            grantTypesSupported: [
                "authorization_code", "refresh_token", TokenExchange.grantType, ClientCredentials.grantType,
                BackchannelRules.grantType,
            ],
            subjectTypesSupported: ["public"],
            idTokenSigningAlgValuesSupported: ["RS256", "ES256"],
            tokenEndpointAuthMethodsSupported: ["none", "client_secret_post", "client_secret_basic", "private_key_jwt"],
            // The contract's vocabulary (`x-gateway-scopes`): every scope an operation names.
            scopesSupported: ContractOperation.scopeVocabulary.map(\.name),
            claimsSupported: [
                "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "name", "picture", "email",
                "preferred_username",
            ],
            codeChallengeMethodsSupported: ["S256"],
            authorizationResponseIssParameterSupported: true,
            dpopSigningAlgValuesSupported: ["ES256"],
            backchannelAuthenticationEndpoint: iss + "/oauth2/bc-authorize",
            backchannelTokenDeliveryModesSupported: BackchannelRequest.DeliveryMode.allCases.map(\.rawValue),
            backchannelUserCodeParameterSupported: true,
            acrValuesSupported: tenant.journeys.acrValuesSupported
        )
    }

    func getJWKS(_ input: Operations.GetJWKS.Input) async throws -> Operations.GetJWKS.Output {
        let tenant = try RequestScope.requireTenant()
        let keys = try await services.auth.keys.publishedKeys(tenantID: tenant.id).map { key in
            let jwk = key.publicJWK
            return Components.Schemas.Jwk(
                kty: key.algorithm == .rs256 ? .rsa : .ec, crv: jwk["crv"]?.stringValue, x: jwk["x"]?.stringValue,
                y: jwk["y"]?.stringValue,
                n: jwk["n"]?.stringValue, e: jwk["e"]?.stringValue, kid: key.kid, use: "sig",
                alg: key.algorithm.rawValue)
        }
        let maxAge = services.jwksMaxAge.components.seconds
        return .ok(.init(headers: .init(cacheControl: "public, max-age=\(maxAge)"), body: .json(.init(keys: keys))))
    }

    func getMe(_ input: Operations.GetMe.Input) async throws -> Operations.GetMe.Output {
        let tenant = try RequestScope.requireTenant()
        let principal = try RequestScope.requirePrincipal()
        let user = try await services.auth.users.user(tenantID: tenant.id, subject: principal.subject)
        return .ok(
            .init(
                body: .json(
                    .init(
                        sub: principal.subject, tenant: tenant.id, name: user?.name, picture: user?.picture,
                        email: user?.email, preferredUsername: user?.username))))
    }

    func getUserInfo(_ input: Operations.GetUserInfo.Input) async throws -> Operations.GetUserInfo.Output {
        let tenant = try RequestScope.requireTenant()
        let principal = try RequestScope.requirePrincipal()
        let scopes = Set(principal.scope.split(separator: " "))
        let user = try await services.auth.users.user(tenantID: tenant.id, subject: principal.subject)
        let profile = scopes.contains("profile")
        return .ok(
            .init(
                body: .json(
                    .init(
                        sub: principal.subject, name: profile ? user?.name : nil,
                        picture: profile ? user?.picture : nil,
                        email: scopes.contains("email") ? user?.email : nil,
                        preferredUsername: profile ? user?.username : nil))))
    }
}
