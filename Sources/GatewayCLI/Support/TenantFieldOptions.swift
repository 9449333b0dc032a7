import Foundation
import ArgumentParser
import GatewayCore

/// One flag per tenant field, for `tenant create` and `tenant update`.
/// For optional text fields an empty value clears the field (`--platform-url ""`).
struct TenantFieldOptions: ParsableArguments {
    @Option(help: "Name shown to users (1-200 characters).") var displayName: String?
    @Option(help: "Mini-app platform project id.") var projectID: String?
    @Option(help: "Mini-app platform subscription key (sealed at rest).") var subscriptionKey: String?
    @Option(help: "Mini-app platform base URL (absolute http/https).") var platformURL: String?
    @Option(help: "Use the platform's preview endpoints (true/false).") var previewMode: Bool?
    @Option(help: "Require verified bundle signatures (true/false).") var requireSignature: Bool?
    @Option(help: "Provisioning service base URL (absolute http/https).") var provisioningURL: String?
    @Option(help: "Super app id at the provisioning service.") var superAppID: String?
    @Option(help: "Super app version at the provisioning service.") var superAppVersion: String?
    @Option(help: "Provisioning API key (sealed at rest).") var provisioningAPIKey: String?
    @Option(
        name: .customLong("storage-max-bytes"), parsing: .unconditional,
        help: "Secure-storage cap per user per mini app, bytes (1-1000000000).") var storageMaxSizeInBytes: Int64?
    @Option(parsing: .unconditional, help: "Max cached mini apps on clients (0 = unlimited, up to 100000).")
    var cacheMaxCount: Int?
    @Option(parsing: .unconditional, help: "Max days since last use of a cached mini app (0 = no limit, up to 3650).")
    var cacheMaxDays: Int?
    @Option(help: "Primary theme colour, #RRGGBB.") var primaryColor: String?
    @Option(help: "Secondary theme colour, #RRGGBB.") var secondaryColor: String?
    @Option(name: .customLong("logo-url"), help: "Logo on the sign-in page (absolute https URL; empty clears).")
    var logoURL: String?
    @Option(parsing: .unconditional, help: "Manifest cache TTL, seconds (1-604800).") var manifestTTL: Int?
    @Option(parsing: .unconditional, help: "Catalog cache TTL, seconds (1-604800).") var catalogTTL: Int?
    @Option(parsing: .unconditional, help: "Localization cache TTL, seconds (1-604800).") var localizationTTL: Int?
    @Option(parsing: .unconditional, help: "Public key cache TTL, seconds (1-604800).") var publicKeyTTL: Int?
    @Option(
        name: .customLong("host-min-version"),
        help: "Host-app version below which the app must update (like 2.1; empty clears).") var hostMinVersion: String?
    @Option(
        name: .customLong("host-latest-version"),
        help: "Host-app version below which an update is recommended (like 2.4.0; empty clears).")
    var hostLatestVersion: String?
    @Option(
        name: .customLong("host-update-url"),
        help: "Where users get the host-app update (absolute https URL; empty clears).") var hostUpdateURL: String?
    @Option(
        name: .customLong("flag"),
        help: ArgumentHelp("Set a feature flag, name=true|false (repeatable).", valueName: "name=bool")) var setFlags:
        [String] = []
    @Option(
        name: .customLong("unset-flag"), help: ArgumentHelp("Remove a feature flag (repeatable).", valueName: "name"))
    var unsetFlags: [String] = []
    @Option(
        name: .customLong("ras-client-key"),
        help: ArgumentHelp(
            "New client key of the RAS-compatible API (16-128 of [A-Za-z0-9._~-]), or `generate` to make one (printed once); the previous key keeps working for --ras-key-overlap seconds. Stored hashed.",
            valueName: "key|generate")) var rasClientKey: String?
    @Option(
        name: .customLong("ras-key-overlap"), parsing: .unconditional,
        help: "Seconds the previous RAS client key stays valid after a new one (0-2592000; default 86400).")
    var rasKeyOverlap: Int = 86_400
    @Option(
        name: .customLong("ras-require-bearer"),
        help: "The RAS-compatible API also needs a gateway bearer token (true/false).") var rasRequireBearer: Bool?

    /// Whether no field flag was given.
    var isEmpty: Bool {
        let values: [Any?] = [
            displayName, projectID, subscriptionKey, platformURL, previewMode, requireSignature,
            provisioningURL, superAppID, superAppVersion, provisioningAPIKey, storageMaxSizeInBytes,
            cacheMaxCount, cacheMaxDays, primaryColor, secondaryColor, logoURL,
            manifestTTL, catalogTTL, localizationTTL, publicKeyTTL,
            hostMinVersion, hostLatestVersion, hostUpdateURL, rasClientKey, rasRequireBearer,
        ]
        return values.allSatisfy { $0 == nil } && setFlags.isEmpty && unsetFlags.isEmpty
    }

    /// The RAS client key to set: the given one, or a new random one for `generate` (nil: none given).
    func newRASClientKey() -> String? {
        rasClientKey == "generate" ? Base64URL.random(byteCount: 24) : rasClientKey
    }

    /// Copies every given flag into `tenant`; empty strings clear optional fields.
    /// `rasKey` is the client key to rotate to (``newRASClientKey()``, resolved once by the caller).
    /// Throws ``CLIError/invalid(_:)`` for a malformed `--flag`/`--unset-flag` or RAS key.
    func apply(to tenant: inout Tenant, rasKey: String? = nil, now: Date = Date()) throws {
        func optional(_ value: String?) -> String?? { value.map { $0.isEmpty ? nil : $0 } }
        if let displayName { tenant.displayName = displayName }
        if let value = optional(projectID) { tenant.platform.projectID = value }
        if let value = optional(subscriptionKey) { tenant.platform.subscriptionKey = value.map(SecretValue.init) }
        if let value = optional(platformURL) { tenant.platform.baseURL = value }
        if let previewMode { tenant.platform.previewMode = previewMode }
        if let requireSignature { tenant.platform.requireSignatureVerification = requireSignature }
        if let value = optional(provisioningURL) { tenant.provisioning.baseURL = value }
        if let value = optional(superAppID) { tenant.provisioning.superAppID = value }
        if let value = optional(superAppVersion) { tenant.provisioning.superAppVersion = value }
        if let value = optional(provisioningAPIKey) { tenant.provisioning.apiKey = value.map(SecretValue.init) }
        if let storageMaxSizeInBytes { tenant.storageMaxSizeInBytes = storageMaxSizeInBytes }
        if let cacheMaxCount { tenant.cacheRules.maxCount = cacheMaxCount }
        if let cacheMaxDays { tenant.cacheRules.maxDays = cacheMaxDays }
        if let primaryColor { tenant.theme.primaryColor = primaryColor }
        if let secondaryColor { tenant.theme.secondaryColor = secondaryColor }
        if let value = optional(logoURL) { tenant.theme.logoURL = value }
        if let manifestTTL { tenant.cacheTTLs.manifestSeconds = manifestTTL }
        if let catalogTTL { tenant.cacheTTLs.catalogSeconds = catalogTTL }
        if let localizationTTL { tenant.cacheTTLs.localizationSeconds = localizationTTL }
        if let publicKeyTTL { tenant.cacheTTLs.publicKeySeconds = publicKeyTTL }
        if let value = optional(hostMinVersion) { tenant.hostApp.minimumVersion = value }
        if let value = optional(hostLatestVersion) { tenant.hostApp.latestVersion = value }
        if let value = optional(hostUpdateURL) { tenant.hostApp.updateURL = value }
        try FeatureFlagChanges(set: setFlags, unset: unsetFlags).apply(to: &tenant.featureFlags)
        if let rasKey {
            guard RASClientKey.isValid(rasKey) else {
                throw CLIError.invalid(
                    "--ras-client-key must be 16-128 characters of A-Z, a-z, 0-9, '.', '_', '~' and '-', or generate")
            }
            guard (0...2_592_000).contains(rasKeyOverlap) else {
                throw CLIError.invalid("--ras-key-overlap must be 0 to 2592000 seconds")
            }
            tenant.ras = tenant.ras.rotated(to: rasKey, overlap: TimeInterval(rasKeyOverlap), now: now)
        }
        if let rasRequireBearer { tenant.ras.requireBearer = rasRequireBearer }
    }

    /// Checks each given flag on its own, before any database is opened.
    func validate() throws {
        var probe = Tenant(id: "probe", displayName: displayName ?? "probe")
        do {
            try apply(to: &probe, rasKey: rasClientKey == "generate" ? "probe-key-0123456789" : rasClientKey)
            try TenantValidator.validate(probe)
        } catch let error as TenantValidationError {
            throw ValidationError(error.flagMessage)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
