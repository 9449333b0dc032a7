import Foundation
import GatewayCore

extension TenantDocument {
    /// The document of `tenant`, secrets shown as `presentation` says.
    init(_ tenant: Tenant, secrets presentation: SecretPresentation, sealer: SecretSealer?) throws {
        func secret(_ value: SecretValue?, _ field: TenantField) throws -> SecretDocument? {
            guard let value else { return nil }
            switch presentation {
            case .masked: return .masked(value.masked)
            case .plaintext: return .plaintext(value.plaintext)
            case .sealed:
                guard let sealer else { return .masked(value.masked) }
                return .sealed(try sealer.seal(value.plaintext, context: field.sealingContext(tenantID: tenant.id)))
            }
        }
        id = tenant.id
        displayName = tenant.displayName
        status = tenant.status
        platform = Platform(
            baseURL: tenant.platform.baseURL, projectID: tenant.platform.projectID,
            subscriptionKey: try secret(tenant.platform.subscriptionKey, .platformSubscriptionKey),
            previewMode: tenant.platform.previewMode,
            requireSignatureVerification: tenant.platform.requireSignatureVerification
        )
        provisioning = Provisioning(
            baseURL: tenant.provisioning.baseURL, superAppID: tenant.provisioning.superAppID,
            superAppVersion: tenant.provisioning.superAppVersion,
            apiKey: try secret(tenant.provisioning.apiKey, .provisioningAPIKey)
        )
        storageMaxSizeInBytes = tenant.storageMaxSizeInBytes
        cacheRules = tenant.cacheRules
        theme = tenant.theme
        cacheTTLs = tenant.cacheTTLs
        hostApp = tenant.hostApp
        featureFlags = tenant.featureFlags
        ras = tenant.ras
        configVersion = tenant.configVersion
        createdAt = tenant.createdAt
        updatedAt = tenant.updatedAt
    }

    /// The tenant this document describes; sealed secrets are opened with `sealer`.
    /// Throws a one-line ``CLIError/invalid(_:)`` naming the field.
    func tenant(sealer: SecretSealer) throws -> Tenant {
        func secret(_ document: SecretDocument?, _ field: TenantField) throws -> SecretValue? {
            switch document {
            case nil: return nil
            case .plaintext(let value): return SecretValue(value)
            case .masked:
                throw CLIError.invalid(
                    "\(field.rawValue) is masked; export with --reveal, or without it to keep secrets sealed")
            case .sealed(let value):
                do {
                    return SecretValue(try sealer.open(value, context: field.sealingContext(tenantID: id)))
                } catch {
                    throw CLIError.invalid("\(error)")
                }
            }
        }
        let defaults = Tenant(id: id, displayName: displayName)
        let now = Date()
        return Tenant(
            id: id,
            displayName: displayName,
            status: status ?? defaults.status,
            platform: PlatformSettings(
                baseURL: platform?.baseURL, projectID: platform?.projectID,
                subscriptionKey: try secret(platform?.subscriptionKey, .platformSubscriptionKey),
                previewMode: platform?.previewMode ?? false,
                requireSignatureVerification: platform?.requireSignatureVerification ?? false
            ),
            provisioning: ProvisioningSettings(
                baseURL: provisioning?.baseURL, superAppID: provisioning?.superAppID,
                superAppVersion: provisioning?.superAppVersion,
                apiKey: try secret(provisioning?.apiKey, .provisioningAPIKey)
            ),
            storageMaxSizeInBytes: storageMaxSizeInBytes ?? defaults.storageMaxSizeInBytes,
            cacheRules: cacheRules ?? defaults.cacheRules,
            theme: theme ?? defaults.theme,
            cacheTTLs: cacheTTLs ?? defaults.cacheTTLs,
            hostApp: hostApp ?? defaults.hostApp,
            featureFlags: featureFlags ?? defaults.featureFlags,
            ras: ras ?? defaults.ras,
            configVersion: configVersion ?? 1,
            createdAt: createdAt ?? now,
            updatedAt: updatedAt ?? now
        )
    }
}
