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
        guard let host = RequestScope.current?.host, !host.isEmpty, host.utf8.count <= 255,
              let document = try await services.userState.links.appSiteAssociation(host: host.lowercased())
        else { throw GatewayProblem.unknownHost() }
        return .ok(.init(body: .json(try Self.decode(Array(document)))))
    }
}
