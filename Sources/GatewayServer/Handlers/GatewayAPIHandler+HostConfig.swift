import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func getHostConfig(_ input: Operations.GetHostConfig.Input) async throws -> Operations.GetHostConfig.Output {
        let tenant = try RequestScope.requireTenant()
        let etag = EntityTag.forConfigVersion(tenant.configVersion)
        if EntityTag.matches(input.headers.ifNoneMatch, etag) {
            return .notModified(.init(headers: .init(eTag: etag)))
        }
        return .ok(.init(headers: .init(eTag: etag), body: .json(Self.hostConfig(tenant))))
    }

    /// The public, non-secret settings of `tenant`.
    static func hostConfig(_ tenant: Tenant) -> Components.Schemas.HostConfig {
        Components.Schemas.HostConfig(
            tenant: tenant.id,
            displayName: tenant.displayName,
            theme: .init(primaryColor: tenant.theme.primaryColor, secondaryColor: tenant.theme.secondaryColor),
            cacheRules: .init(maxCount: tenant.cacheRules.maxCount, maxDays: tenant.cacheRules.maxDays),
            requireSignatureVerification: tenant.platform.requireSignatureVerification,
            storageMaxSizeInBytes: tenant.storageMaxSizeInBytes,
            configVersion: tenant.configVersion
        )
    }
}
