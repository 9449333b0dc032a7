import Foundation
import GatewayCore
import GRDB

/// One row of the `tenants` table: a ``Tenant`` flattened, secrets sealed. It exists apart
/// from ``Tenant`` because storage wants flat columns, sealed secrets and integer
/// milliseconds, and both engines must read each other's rows (PostgreSQL keeps this as JSON).
/// One column per ``TenantField`` plus the store's bookkeeping (`TenantShapesTests`).
package struct TenantRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "tenants"

    var id: String
    var displayName: String
    var status: String
    var platformBaseURL: String?
    var platformProjectID: String?
    var platformSubscriptionKeySealed: String?
    var platformPreviewMode: Bool
    var platformRequireSignature: Bool
    var provisioningBaseURL: String?
    var provisioningSuperAppID: String?
    var provisioningSuperAppVersion: String?
    var provisioningAPIKeySealed: String?
    var storageMaxSizeInBytes: Int64
    var cacheMaxCount: Int
    var cacheMaxDays: Int
    var themePrimaryColor: String
    var themeSecondaryColor: String
    var themeLogoURL: String?
    var ttlManifestSeconds: Int
    var ttlCatalogSeconds: Int
    var ttlLocalizationSeconds: Int
    var ttlPublicKeySeconds: Int
    var hostMinimumVersion: String?
    var hostLatestVersion: String?
    var hostUpdateURL: String?
    /// JSON object of flag name → Bool, keys sorted (`{}` when none).
    var featureFlags: String
    /// JSON array of the RAS client keys' hashes and expiries (`[]` when none).
    var rasClientKeys: String
    var rasRequireBearer: Bool
    var cibaRevealUnknownUsers: Bool
    var cibaRecentSignInSeconds: Int
    var cibaAllowPrivateEndpoints: Bool
    /// JSON object of the journey settings (``JourneySettings``; `{}`: the defaults).
    var journeys: String
    /// JSON object of the WebAuthn relying party (``PasskeySettings``; `{}`: the defaults).
    var passkeys: String
    /// JSON object of the courier settings (``CourierDocument``, secrets sealed; `{}`: none).
    var courier: String
    package var configVersion: Int64
    var createdAtMs: Int64
    var updatedAtMs: Int64

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case id, status
        case displayName = "display_name"
        case platformBaseURL = "platform_base_url"
        case platformProjectID = "platform_project_id"
        case platformSubscriptionKeySealed = "platform_subscription_key_sealed"
        case platformPreviewMode = "platform_preview_mode"
        case platformRequireSignature = "platform_require_signature"
        case provisioningBaseURL = "provisioning_base_url"
        case provisioningSuperAppID = "provisioning_super_app_id"
        case provisioningSuperAppVersion = "provisioning_super_app_version"
        case provisioningAPIKeySealed = "provisioning_api_key_sealed"
        case storageMaxSizeInBytes = "storage_max_size_bytes"
        case cacheMaxCount = "cache_max_count"
        case cacheMaxDays = "cache_max_days"
        case themePrimaryColor = "theme_primary_color"
        case themeSecondaryColor = "theme_secondary_color"
        case themeLogoURL = "theme_logo_url"
        case ttlManifestSeconds = "ttl_manifest_seconds"
        case ttlCatalogSeconds = "ttl_catalog_seconds"
        case ttlLocalizationSeconds = "ttl_localization_seconds"
        case ttlPublicKeySeconds = "ttl_public_key_seconds"
        case hostMinimumVersion = "host_min_version"
        case hostLatestVersion = "host_latest_version"
        case hostUpdateURL = "host_update_url"
        case featureFlags = "feature_flags"
        case rasClientKeys = "ras_client_keys"
        case rasRequireBearer = "ras_require_bearer"
        case cibaRevealUnknownUsers = "ciba_reveal_unknown_users"
        case cibaRecentSignInSeconds = "ciba_recent_sign_in_seconds"
        case cibaAllowPrivateEndpoints = "ciba_allow_private_endpoints"
        case journeys
        case passkeys
        case courier
        case configVersion = "config_version"
        case createdAtMs = "created_at_ms"
        case updatedAtMs = "updated_at_ms"
    }

    static func context(tenantID: String, field: TenantField) -> String {
        field.sealingContext(tenantID: tenantID)
    }

    package init(_ t: Tenant, sealer: SecretSealer) throws {
        id = t.id
        displayName = t.displayName
        status = t.status.rawValue
        platformBaseURL = t.platform.baseURL
        platformProjectID = t.platform.projectID
        platformSubscriptionKeySealed = try t.platform.subscriptionKey.map {
            try sealer.seal($0.plaintext, context: Self.context(tenantID: t.id, field: .platformSubscriptionKey))
        }
        platformPreviewMode = t.platform.previewMode
        platformRequireSignature = t.platform.requireSignatureVerification
        provisioningBaseURL = t.provisioning.baseURL
        provisioningSuperAppID = t.provisioning.superAppID
        provisioningSuperAppVersion = t.provisioning.superAppVersion
        provisioningAPIKeySealed = try t.provisioning.apiKey.map {
            try sealer.seal($0.plaintext, context: Self.context(tenantID: t.id, field: .provisioningAPIKey))
        }
        storageMaxSizeInBytes = t.storageMaxSizeInBytes
        cacheMaxCount = t.cacheRules.maxCount
        cacheMaxDays = t.cacheRules.maxDays
        themePrimaryColor = t.theme.primaryColor
        themeSecondaryColor = t.theme.secondaryColor
        themeLogoURL = t.theme.logoURL
        ttlManifestSeconds = t.cacheTTLs.manifestSeconds
        ttlCatalogSeconds = t.cacheTTLs.catalogSeconds
        ttlLocalizationSeconds = t.cacheTTLs.localizationSeconds
        ttlPublicKeySeconds = t.cacheTTLs.publicKeySeconds
        hostMinimumVersion = t.hostApp.minimumVersion
        hostLatestVersion = t.hostApp.latestVersion
        hostUpdateURL = t.hostApp.updateURL
        featureFlags = try Self.encodeFlags(t.featureFlags)
        rasClientKeys = String(decoding: try JSONEncoder.tenantColumn.encode(t.ras.clientKeys), as: UTF8.self)
        rasRequireBearer = t.ras.requireBearer
        cibaRevealUnknownUsers = t.ciba.revealUnknownUsers
        cibaRecentSignInSeconds = t.ciba.recentSignInSeconds
        cibaAllowPrivateEndpoints = t.ciba.allowPrivateNotificationEndpoints
        journeys = String(decoding: try JSONEncoder.tenantColumn.encode(t.journeys), as: UTF8.self)
        passkeys = String(decoding: try JSONEncoder.tenantColumn.encode(t.passkeys), as: UTF8.self)
        courier = String(
            decoding: try JSONEncoder.tenantColumn.encode(
                CourierDocument(t.courier, tenantID: t.id, secrets: .sealed, sealer: sealer)),
            as: UTF8.self)
        configVersion = t.configVersion
        createdAtMs = StoreClock.milliseconds(t.createdAt)
        updatedAtMs = StoreClock.milliseconds(t.updatedAt)
    }

    package func tenant(sealer: SecretSealer) throws -> Tenant {
        let subscriptionKey = try platformSubscriptionKeySealed.map {
            SecretValue(try sealer.open($0, context: Self.context(tenantID: id, field: .platformSubscriptionKey)))
        }
        let apiKey = try provisioningAPIKeySealed.map {
            SecretValue(try sealer.open($0, context: Self.context(tenantID: id, field: .provisioningAPIKey)))
        }
        return Tenant(
            id: id,
            displayName: displayName,
            status: TenantStatus(rawValue: status) ?? .suspended,
            platform: PlatformSettings(
                baseURL: platformBaseURL, projectID: platformProjectID, subscriptionKey: subscriptionKey,
                previewMode: platformPreviewMode, requireSignatureVerification: platformRequireSignature
            ),
            provisioning: ProvisioningSettings(
                baseURL: provisioningBaseURL, superAppID: provisioningSuperAppID,
                superAppVersion: provisioningSuperAppVersion, apiKey: apiKey
            ),
            storageMaxSizeInBytes: storageMaxSizeInBytes,
            cacheRules: ClientCacheRules(maxCount: cacheMaxCount, maxDays: cacheMaxDays),
            theme: Theme(primaryColor: themePrimaryColor, secondaryColor: themeSecondaryColor, logoURL: themeLogoURL),
            cacheTTLs: CacheTTLs(
                manifestSeconds: ttlManifestSeconds, catalogSeconds: ttlCatalogSeconds,
                localizationSeconds: ttlLocalizationSeconds, publicKeySeconds: ttlPublicKeySeconds
            ),
            hostApp: HostAppVersionPolicy(
                minimumVersion: hostMinimumVersion, latestVersion: hostLatestVersion, updateURL: hostUpdateURL),
            featureFlags: try Self.decodeFlags(featureFlags, tenantID: id),
            ras: RASSettings(
                clientKeys: try Self.decodeRASKeys(rasClientKeys, tenantID: id), requireBearer: rasRequireBearer),
            ciba: CIBASettings(
                revealUnknownUsers: cibaRevealUnknownUsers, recentSignInSeconds: cibaRecentSignInSeconds,
                allowPrivateNotificationEndpoints: cibaAllowPrivateEndpoints),
            journeys: try JSONDecoder.tenantColumn.decode(JourneySettings.self, from: Data(journeys.utf8)),
            passkeys: try JSONDecoder.tenantColumn.decode(PasskeySettings.self, from: Data(passkeys.utf8)),
            courier: try Self.decodeCourier(courier, tenantID: id, sealer: sealer),
            configVersion: configVersion,
            createdAt: StoreClock.date(createdAtMs),
            updatedAt: StoreClock.date(updatedAtMs)
        )
    }

    /// The courier column's settings, its secrets opened (only sealed ones are stored).
    static func decodeCourier(_ text: String, tenantID: String, sealer: SecretSealer) throws -> CourierSettings {
        try JSONDecoder.tenantColumn.decode(CourierDocument.self, from: Data(text.utf8)).settings { secret, field in
            guard case .sealed(let sealed) = secret else {
                throw TenantStoreError.invalid("tenant \(tenantID): \(field.rawValue) is stored unsealed")
            }
            return SecretValue(try sealer.open(sealed, context: context(tenantID: tenantID, field: field)))
        }
    }

    static func encodeFlags(_ flags: [String: Bool]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(flags), as: UTF8.self)
    }

    static func decodeRASKeys(_ text: String, tenantID: String) throws -> [RASClientKey] {
        do {
            return try JSONDecoder.tenantColumn.decode([RASClientKey].self, from: Data(text.utf8))
        } catch {
            throw TenantStoreError.invalid(
                "tenant '\(tenantID)' has unreadable RAS client keys in the database: \(error)")
        }
    }

    static func decodeFlags(_ text: String, tenantID: String) throws -> [String: Bool] {
        do {
            return try JSONDecoder().decode([String: Bool].self, from: Data(text.utf8))
        } catch {
            throw TenantStoreError.invalid(
                "tenant '\(tenantID)' has unreadable feature flags in the database: \(error)")
        }
    }
}

extension JSONEncoder {
    /// A JSON column of a tenant row (the RAS client keys, the journey settings): millisecond
    /// dates, sorted keys (both engines alike).
    static var tenantColumn: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }
}

extension JSONDecoder {
    /// Reads what ``JSONEncoder/tenantColumn`` wrote.
    static var tenantColumn: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
