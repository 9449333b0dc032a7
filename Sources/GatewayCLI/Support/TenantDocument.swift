import Foundation
import GatewayCore

/// A tenant as gatewayctl prints, exports and imports it. It exists apart from ``Tenant``
/// because a file is written by people: every section and field is optional (missing ones
/// take the ``Tenant`` defaults on import) and secrets are sealed, masked or revealed as the
/// command says. `ExportImportCLITests` round-trips every field through it.
struct TenantDocument: Codable {
    struct Platform: Codable {
        var baseURL: String?
        var projectID: String?
        var subscriptionKey: SecretDocument?
        var previewMode: Bool?
        var requireSignatureVerification: Bool?
    }

    struct Provisioning: Codable {
        var baseURL: String?
        var superAppID: String?
        var superAppVersion: String?
        var apiKey: SecretDocument?
    }

    var id: String
    var displayName: String
    var status: TenantStatus?
    var platform: Platform?
    var provisioning: Provisioning?
    var storageMaxSizeInBytes: Int64?
    var cacheRules: ClientCacheRules?
    var theme: Theme?
    var cacheTTLs: CacheTTLs?
    var hostApp: HostAppVersionPolicy?
    var featureFlags: [String: Bool]?
    /// Client keys as hashes only (never the keys), so an export carries no secret here.
    var ras: RASSettings?
    var configVersion: Int64?
    var createdAt: Date?
    var updatedAt: Date?
}

/// The file `tenant export` writes and `tenant import` reads.
struct TenantExportFile: Codable {
    static let formatName = "superapp-gateway/tenants"

    var format: String?
    var formatVersion: Int?
    var exportedAt: Date?
    /// `sealed` (open only with the same master key) or `plaintext` (`--reveal`).
    var secrets: String?
    var tenants: [TenantDocument]
}
