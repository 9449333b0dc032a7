import GatewayAPI
import GatewayCore
import HTTPTypes

extension GatewayAPIHandler {
    func getHostConfig(_ input: Operations.GetHostConfig.Input) async throws -> Operations.GetHostConfig.Output {
        let clientVersion = try RequestValidation.hostAppVersion(input.query.hostAppVersion)
        let tenant = try RequestScope.requireTenant()
        let verdict = clientVersion.map { tenant.hostApp.verdict(for: $0) }
        let etag = EntityTag.forConfigVersion(tenant.configVersion, variant: verdict?.rawValue)
        return EntityTag.answer(etag, notModified: { .notModified(.init(headers: .init(eTag: $0))) }) {
            .ok(.init(headers: .init(eTag: etag), body: .json(Self.hostConfig(tenant, verdict: verdict))))
        }
    }

    /// The public, non-secret settings of `tenant`; `verdict` (the update verdict for the
    /// caller's host-app version) only when the caller told its version.
    static func hostConfig(_ tenant: Tenant, verdict: HostAppUpdate? = nil) -> Components.Schemas.HostConfig {
        Components.Schemas.HostConfig(
            tenant: tenant.id,
            displayName: tenant.displayName,
            theme: .init(
                primaryColor: tenant.theme.primaryColor, secondaryColor: tenant.theme.secondaryColor,
                logoUrl: tenant.theme.logoURL),
            cacheRules: .init(maxCount: tenant.cacheRules.maxCount, maxDays: tenant.cacheRules.maxDays),
            requireSignatureVerification: tenant.platform.requireSignatureVerification,
            storageMaxSizeInBytes: tenant.storageMaxSizeInBytes,
            configVersion: tenant.configVersion,
            hostApp: .init(
                minimumVersion: tenant.hostApp.minimumVersion,
                latestVersion: tenant.hostApp.latestVersion,
                updateURL: tenant.hostApp.updateURL,
                update: verdict.flatMap { .init(rawValue: $0.rawValue) }
            ),
            featureFlags: .init(additionalProperties: tenant.featureFlags)
        )
    }
}
