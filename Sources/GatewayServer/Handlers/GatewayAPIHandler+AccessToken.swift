import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func issueMiniAppAccessToken(
        _ input: Operations.IssueMiniAppAccessToken.Input
    ) async throws -> Operations.IssueMiniAppAccessToken.Output {
        try RequestValidation.identifier(input.path.id, "id")
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        try RequestValidation.length(body.audience, 1...256, "audience")
        guard body.scopes.count <= 50 else { throw GatewayProblem.invalidRequest("`scopes` holds at most 50 entries.") }
        for scope in body.scopes { try RequestValidation.length(scope, 1...256, "scopes[]") }
        let (owner, tenant, _) = try userStateContext(miniAppID: input.path.id)
        let token = try await miniAppAccessToken(
            tenant: tenant, userID: owner.userID, miniAppID: input.path.id,
            request: AccessTokenRequest(audience: body.audience, scopes: body.scopes))
        return .ok(
            .init(
                body: .json(
                    .init(
                        token: token.token, validUntil: StoreClock.milliseconds(token.validUntil),
                        scopes: .init(audience: token.audience, scopes: token.scopes)
                    ))))
    }

    /// A mini-app access token by the consent and `accessTokenPermissions` rules: the one
    /// implementation behind this endpoint and token exchange at `/oauth2/token`.
    func miniAppAccessToken(
        tenant: Tenant, userID: String, miniAppID: String, request: AccessTokenRequest
    ) async throws -> MiniAppAccessToken {
        let manifest = try await permissionManifest(tenant: tenant, id: miniAppID, lang: nil, userID: userID)
        return try await services.userState.accessTokens.issue(
            tenant: tenant, userID: userID, manifest: manifest, request: request)
    }

    func revokeMiniAppAccessTokens(
        _ input: Operations.RevokeMiniAppAccessTokens.Input
    ) async throws -> Operations.RevokeMiniAppAccessTokens.Output {
        try RequestValidation.identifier(input.path.id, "id")
        let (owner, _, state) = try userStateContext(miniAppID: input.path.id)
        let count = try await state.accessTokens.revokeAll(owner)
        return .ok(.init(body: .json(.init(revoked: count))))
    }
}
