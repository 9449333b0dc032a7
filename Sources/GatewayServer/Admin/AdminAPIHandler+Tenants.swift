import AdminAPI
import Foundation
import GatewayCore

/// Tenants on the admin API: the wire in, ``AdminService`` decides, the tenant out in the
/// shape `gatewayctl tenant show --json` prints (secrets masked).
extension AdminAPIHandler {
    func adminListTenants(_ input: Operations.AdminListTenants.Input) async throws -> Operations.AdminListTenants.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.listTenants(
            try AdminScope.call(), cursor: input.query.cursor, limit: input.query.limit ?? 50,
            status: input.query.status.flatMap { TenantStatus(rawValue: $0.rawValue) })
        return .ok(.init(body: .json(.init(items: try page.items.map(Self.view), next: page.next))))
    }

    func adminGetTenant(_ input: Operations.AdminGetTenant.Input) async throws -> Operations.AdminGetTenant.Output {
        let tenant = try await service.tenant(try AdminScope.call(), id: input.path.tenant)
        return .ok(.init(headers: .init(eTag: Self.etag(tenant)), body: .json(try Self.view(tenant))))
    }

    func adminPatchTenant(_ input: Operations.AdminPatchTenant.Input) async throws -> Operations.AdminPatchTenant.Output {
        guard case .applicationMergePatchJson(let body) = input.body else { throw AdminError.badRequest("a merge patch body") }
        let patch = try Self.patch(body)
        guard !patch.isEmpty else { throw AdminError.badRequest("the patch names no field") }
        let tenant = try await service.updateTenant(
            try AdminScope.call(), id: input.path.tenant, patch: patch,
            revision: try input.headers.ifMatch.map(Self.revision))
        return .ok(.init(headers: .init(eTag: Self.etag(tenant)), body: .json(try Self.view(tenant))))
    }

    func adminCreateTenant(_ input: Operations.AdminCreateTenant.Input) async throws -> Operations.AdminCreateTenant.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        let patch = try Self.patch(body)
        let call = try AdminScope.call()
        let (response, replayed) = try await service.once(
            call, key: input.headers.idempotencyKey, fingerprint: try Self.fingerprint("tenant-create", body: body)
        ) {
            let tenant = try await service.createTenant(call, id: body.id, displayName: body.displayName, patch: patch)
            return IdempotentResponse(status: 201, etag: Self.etag(tenant), body: try Self.json(Self.document(tenant)))
        }
        return .created(
            .init(
                headers: .init(eTag: response.etag ?? "", idempotentReplayed: replayed ? ._true : nil),
                body: .json(try Self.wire(json: response.body, as: Components.Schemas.Tenant.self))))
    }

    func adminTenantAction(_ input: Operations.AdminTenantAction.Input) async throws -> Operations.AdminTenantAction.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        let tenant = try await service.setTenantStatus(
            try AdminScope.call(), id: input.path.tenant, status: body.action == .suspend ? .suspended : .active,
            revision: try input.headers.ifMatch.map(Self.revision))
        return .ok(.init(headers: .init(eTag: Self.etag(tenant)), body: .json(try Self.view(tenant))))
    }

    /// The tenant as operators read it: every field, secrets masked.
    static func document(_ tenant: Tenant) throws -> TenantDocument {
        try TenantDocument(tenant, secrets: .masked, sealer: nil)
    }

    static func view(_ tenant: Tenant) throws -> Components.Schemas.Tenant {
        try wire(document(tenant), as: Components.Schemas.Tenant.self)
    }

    /// The tenant patch a create or patch body says (same member names, through JSON).
    /// The contract's bounds are checked first (400), before any revision is compared.
    static func patch(_ body: some Encodable) throws -> TenantPatch {
        let patch = try wire(body, as: TenantPatch.self)
        let (url, identifier, secret) = (TenantValidator.urlMaxLength, TenantValidator.identifierMaxLength, TenantValidator.secretMaxLength)
        let bounded: [(String?, Int, String)] = [
            (patch.platform?.baseURL, url, "platform.baseURL"), (patch.platform?.projectID, identifier, "platform.projectID"),
            (patch.platform?.subscriptionKey, secret, "platform.subscriptionKey"),
            (patch.provisioning?.baseURL, url, "provisioning.baseURL"),
            (patch.provisioning?.superAppID, identifier, "provisioning.superAppID"),
            (patch.provisioning?.superAppVersion, identifier, "provisioning.superAppVersion"),
            (patch.provisioning?.apiKey, secret, "provisioning.apiKey"), (patch.theme?.primaryColor, 7, "theme.primaryColor"),
            (patch.theme?.secondaryColor, 7, "theme.secondaryColor"), (patch.theme?.logoURL, url, "theme.logoURL"),
            (patch.hostApp?.minimumVersion, 64, "hostApp.minimumVersion"),
            (patch.hostApp?.latestVersion, 64, "hostApp.latestVersion"), (patch.hostApp?.updateURL, url, "hostApp.updateURL"),
            (patch.ras?.clientKey, 128, "ras.clientKey"),
        ]
        for (value, max, name) in bounded { try AdminInput.check(value, max: max, name, empty: true) }
        try AdminInput.check(patch.displayName, max: TenantValidator.displayNameMaxLength, "displayName")
        let flagNames = Array(patch.featureFlags?.keys ?? [:].keys) + (patch.removeFeatureFlags ?? [])
        for name in flagNames { try AdminInput.check(name, max: TenantValidator.featureFlagNameMaxLength, "a feature flag") }
        try AdminInput.check(patch.removeFeatureFlags, maxItems: TenantValidator.featureFlagsMaxCount, "removeFeatureFlags")
        try AdminInput.check(patch.featureFlags.map(Array.init), maxItems: TenantValidator.featureFlagsMaxCount, "featureFlags")
        return patch
    }
}
