import AdminAPI
import Foundation
import GatewayCore

/// A tenant's link domains on the admin API.
extension AdminAPIHandler {
    func adminListLinkDomains(
        _ input: Operations.AdminListLinkDomains.Input
    ) async throws -> Operations.AdminListLinkDomains.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.linkDomains(
            try AdminScope.call(), tenantID: input.path.tenant, cursor: input.query.cursor,
            limit: input.query.limit ?? 50)
        let items = try page.items.map { try Self.wire($0, as: Components.Schemas.LinkDomain.self) }
        return .ok(.init(body: .json(.init(items: items, next: page.next))))
    }

    func adminGetLinkDomain(
        _ input: Operations.AdminGetLinkDomain.Input
    ) async throws -> Operations.AdminGetLinkDomain.Output {
        try AdminInput.check(input.path.host, max: 253, "host")
        let found = try await service.linkDomain(
            try AdminScope.call(), tenantID: input.path.tenant, host: input.path.host)
        return .ok(.init(body: .json(try Self.wire(found, as: Components.Schemas.LinkDomain.self))))
    }

    func adminAddLinkDomain(
        _ input: Operations.AdminAddLinkDomain.Input
    ) async throws -> Operations.AdminAddLinkDomain.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(body.host, max: 253, "host")
        let appIDs = body.appIDs ?? []
        try AdminInput.check(appIDs, maxItems: 50, "appIDs")
        for id in appIDs { try AdminInput.check(id, max: 166, "an app id") }
        let androidApps = body.androidApps ?? []
        try AdminInput.check(androidApps, maxItems: 50, "androidApps")
        for app in androidApps {
            try AdminInput.check(app.packageName, max: 255, "a package name")
            try AdminInput.check(app.sha256CertFingerprints, maxItems: 10, "sha256CertFingerprints")
            for print in app.sha256CertFingerprints { try AdminInput.check(print, max: 95, "a fingerprint") }
        }
        let domain = try await service.addLinkDomain(
            try AdminScope.call(), tenantID: input.path.tenant, host: body.host, appIDs: appIDs,
            androidApps: androidApps.map {
                AndroidApp(packageName: $0.packageName, sha256CertFingerprints: $0.sha256CertFingerprints)
            })
        return .ok(.init(body: .json(try Self.wire(domain, as: Components.Schemas.LinkDomain.self))))
    }

    func adminDeleteLinkDomain(
        _ input: Operations.AdminDeleteLinkDomain.Input
    ) async throws -> Operations.AdminDeleteLinkDomain.Output {
        try AdminInput.check(input.path.host, max: 253, "host")
        try await service.removeLinkDomain(try AdminScope.call(), tenantID: input.path.tenant, host: input.path.host)
        return .noContent(.init())
    }
}
