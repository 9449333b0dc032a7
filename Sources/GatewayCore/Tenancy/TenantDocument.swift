import Foundation

/// A tenant as gatewayctl prints, exports and imports it, and as the admin API answers it
/// (secrets masked). It exists apart from ``Tenant``
/// because a file is written by people: every section and field is optional (missing ones
/// take the ``Tenant`` defaults on import) and secrets are sealed, masked or revealed as the
/// command says. `ExportImportCLITests` round-trips every field through it.
public struct TenantDocument: Codable, Sendable, Equatable {
    public struct Platform: Codable, Sendable, Equatable {
        public var baseURL: String?
        public var projectID: String?
        public var subscriptionKey: SecretDocument?
        public var previewMode: Bool?
        public var requireSignatureVerification: Bool?
    }

    public struct Provisioning: Codable, Sendable, Equatable {
        public var baseURL: String?
        public var superAppID: String?
        public var superAppVersion: String?
        public var apiKey: SecretDocument?
    }

    public var id: String
    public var displayName: String
    public var status: TenantStatus?
    public var platform: Platform?
    public var provisioning: Provisioning?
    public var storageMaxSizeInBytes: Int64?
    public var cacheRules: ClientCacheRules?
    public var theme: Theme?
    public var cacheTTLs: CacheTTLs?
    public var hostApp: HostAppVersionPolicy?
    public var featureFlags: [String: Bool]?
    /// Client keys as hashes only (never the keys), so an export carries no secret here.
    public var ras: RASSettings?
    public var ciba: CIBASettings?
    public var journeys: JourneySettings?
    public var passkeys: PasskeySettings?
    /// The courier's relay and SMS provider, secrets as the document's presentation says.
    public var courier: CourierDocument?
    public var configVersion: Int64?
    public var createdAt: Date?
    public var updatedAt: Date?
}

extension TenantDocument {
    /// The document of `tenant`, secrets shown as `presentation` says.
    public init(_ tenant: Tenant, secrets presentation: SecretPresentation, sealer: SecretSealer?) throws {
        func secret(_ value: SecretValue?, _ field: TenantField) throws -> SecretDocument? {
            try SecretDocument.presenting(value, field: field, tenantID: tenant.id, as: presentation, sealer: sealer)
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
        ciba = tenant.ciba
        journeys = tenant.journeys
        passkeys = tenant.passkeys
        courier = try CourierDocument(tenant.courier, tenantID: tenant.id, secrets: presentation, sealer: sealer)
        configVersion = tenant.configVersion
        createdAt = tenant.createdAt
        updatedAt = tenant.updatedAt
    }
}
