import Foundation
import GatewayCore

extension TenantDocument {
    /// The tenant this document describes; sealed secrets are opened with `sealer`.
    /// Throws a one-line ``CLIError/invalid(_:)`` naming the field.
    func tenant(sealer: SecretSealer?) throws -> Tenant {
        func open(_ document: SecretDocument, _ field: TenantField) throws -> SecretValue {
            switch document {
            case .plaintext(let value): return SecretValue(value)
            case .masked:
                throw CLIError.invalid(
                    "\(field.rawValue) is masked; export with --reveal, or without it to keep secrets sealed")
            case .sealed(let value):
                guard let sealer else { throw CLIError.invalid("\(field.rawValue) is sealed and no key opens it") }
                do {
                    return SecretValue(try sealer.open(value, context: field.sealingContext(tenantID: id)))
                } catch {
                    throw CLIError.invalid("\(error)")
                }
            }
        }
        func secret(_ document: SecretDocument?, _ field: TenantField) throws -> SecretValue? {
            try document.map { try open($0, field) }
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
            ciba: ciba ?? defaults.ciba,
            journeys: journeys ?? defaults.journeys,
            passkeys: passkeys ?? defaults.passkeys,
            courier: try courier?.settings(opening: open) ?? defaults.courier,
            configVersion: configVersion ?? 1,
            createdAt: createdAt ?? now,
            updatedAt: updatedAt ?? now
        )
    }

    /// The tenant an admin API answer describes, for text output: its secrets are masked
    /// there, so they are left out of the tenant and returned as the masked texts to show.
    func shown() throws -> (tenant: Tenant, masked: [TenantField: String]) {
        var masked: [TenantField: String] = [:]
        var copy = self
        if case .masked(let text) = platform?.subscriptionKey { masked[.platformSubscriptionKey] = text }
        if case .masked(let text) = provisioning?.apiKey { masked[.provisioningAPIKey] = text }
        if case .masked(let text) = courier?.smtp?.password { masked[.courierSMTPPassword] = text }
        if case .masked(let text) = courier?.sms?.authToken { masked[.courierSMSAuthToken] = text }
        copy.platform?.subscriptionKey = nil
        copy.provisioning?.apiKey = nil
        copy.courier?.smtp?.password = nil
        copy.courier?.sms?.authToken = nil
        return (try copy.tenant(sealer: nil), masked)
    }
}
