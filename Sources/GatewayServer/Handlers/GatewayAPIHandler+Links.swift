import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func resolveDeepLink(_ input: Operations.ResolveDeepLink.Input) async throws -> Operations.ResolveDeepLink.Output {
        try RequestValidation.length(input.query.url, 1...2048, "url")
        let tenant = try RequestScope.requireTenant()
        let link = try await services.userState.links.resolve(input.query.url, tenantID: tenant.id)
        return .ok(.init(body: .json(.init(miniAppId: link.miniAppID, query: link.query, fragment: link.fragment))))
    }

    func getAppSiteAssociation(
        _ input: Operations.GetAppSiteAssociation.Input
    ) async throws -> Operations.GetAppSiteAssociation.Output {
        let document = try await Self.hostDocument { try await services.userState.links.appSiteAssociation(host: $0) }
        return .ok(.init(body: .json(try Self.decode(Array(document)))))
    }

    func getAssetLinks(_ input: Operations.GetAssetLinks.Input) async throws -> Operations.GetAssetLinks.Output {
        let document = try await Self.hostDocument { try await services.userState.links.assetLinks(host: $0) }
        return .ok(.init(body: .json(try Self.decode(Array(document)))))
    }

    /// The document `build` makes for the request's `Host` (lowercased); 404 `unknown_host` for
    /// a host no tenant serves.
    private static func hostDocument(_ build: (String) async throws -> Data?) async throws -> Data {
        guard let host = RequestScope.current?.host, !host.isEmpty, host.utf8.count <= 255,
              let document = try await build(host.lowercased())
        else { throw GatewayProblem.unknownHost() }
        return document
    }
}
