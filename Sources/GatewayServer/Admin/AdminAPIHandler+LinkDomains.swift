import AdminAPI
import Foundation
import GatewayCore

/// A tenant's link domains on the admin API.
extension AdminAPIHandler {
    func adminListLinkDomains(_ input: Operations.AdminListLinkDomains.Input) async throws -> Operations.AdminListLinkDomains.Output {
        let page = try await service.linkDomains(
            try AdminScope.call(), tenantID: input.path.tenant, cursor: input.query.cursor, limit: input.query.limit ?? 50)
        let items = try page.items.map { try Self.wire($0, as: Components.Schemas.LinkDomain.self) }
        return .ok(.init(body: .json(.init(items: items, next: page.next))))
    }

    func adminGetLinkDomain(_ input: Operations.AdminGetLinkDomain.Input) async throws -> Operations.AdminGetLinkDomain.Output {
        let found = try await service.linkDomain(try AdminScope.call(), tenantID: input.path.tenant, host: input.path.host)
        return .ok(.init(body: .json(try Self.wire(found, as: Components.Schemas.LinkDomain.self))))
    }

    func adminAddLinkDomain(_ input: Operations.AdminAddLinkDomain.Input) async throws -> Operations.AdminAddLinkDomain.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        let domain = try await service.addLinkDomain(
            try AdminScope.call(), tenantID: input.path.tenant, host: body.host, appIDs: body.appIDs)
        return .ok(.init(body: .json(try Self.wire(domain, as: Components.Schemas.LinkDomain.self))))
    }

    func adminDeleteLinkDomain(
        _ input: Operations.AdminDeleteLinkDomain.Input
    ) async throws -> Operations.AdminDeleteLinkDomain.Output {
        try await service.removeLinkDomain(try AdminScope.call(), tenantID: input.path.tenant, host: input.path.host)
        return .noContent(.init())
    }
}
