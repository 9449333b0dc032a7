import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func resolveDeepLink(_ input: Operations.ResolveDeepLink.Input) async throws -> Operations.ResolveDeepLink.Output {
        try RequestValidation.length(input.query.url, 1...2048, "url")
        let tenant = try RequestScope.requireTenant()
        do {
            let link = try await services.userState.links.resolve(input.query.url, tenantID: tenant.id)
            return .ok(.init(body: .json(.init(miniAppId: link.miniAppID, query: link.query, fragment: link.fragment))))
        } catch let error as DeepLinkError {
            throw GatewayProblem(status: 422, code: "invalid_deep_link", title: "Not a deep link of this tenant", detail: error.description)
        }
    }

    func getAppSiteAssociation(_ input: Operations.GetAppSiteAssociation.Input) async throws -> Operations.GetAppSiteAssociation.Output {
        let unknown = GatewayProblem(status: 404, code: "unknown_host", title: "Unknown host", detail: "No tenant domain is registered for this host.")
        guard let host = RequestScope.current?.host, !host.isEmpty, host.utf8.count <= 255,
              let document = try await services.userState.links.appSiteAssociation(host: host.lowercased())
        else { throw unknown }
        return .ok(.init(body: .json(try Self.decode(Array(document)))))
    }
}
