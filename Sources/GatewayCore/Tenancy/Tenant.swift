import Foundation

/// One super-app tenant: who it is, where its upstreams live and how its clients behave.
///
/// Secrets (`PlatformSettings.subscriptionKey`, `ProvisioningSettings.apiKey`) are held
/// in memory as ``SecretValue`` so that printing or logging a tenant never reveals them;
/// stores seal them before they reach disk.
///
/// The domain shape, one of three a tenant has, each for a reason: this one is what the
/// gateway runs on (nested settings, secrets in memory); ``TenantRecord`` is the storage row
/// (flat columns, secrets sealed, millisecond times, the same JSON on both engines); the
/// CLI's `TenantDocument` is the export/import file (every field optional so a partial
/// document imports with defaults; secrets sealed, masked or revealed). ``TenantField`` is
/// the one list of configurable fields; `TenantShapesTests` fails when a shape misses one.
public struct Tenant: Sendable, Equatable, Codable {
    /// Slug, `[a-z0-9][a-z0-9-]{1,62}`; see ``TenantID``.
    public var id: String
    public var displayName: String
    public var status: TenantStatus
    public var platform: PlatformSettings
    public var provisioning: ProvisioningSettings
    /// Secure-storage cap per user per mini app, key + value bytes.
    public var storageMaxSizeInBytes: Int64
    public var cacheRules: ClientCacheRules
    public var theme: Theme
    public var cacheTTLs: CacheTTLs
    /// Minimum and latest host-app versions and where to update.
    public var hostApp: HostAppVersionPolicy
    /// Feature flags for the host app, by name (`^[a-z][a-z0-9_.-]{0,63}$`, at most 100).
    public var featureFlags: [String: Bool]
    /// The Rakuten MiniApp SDK-compatible API (`/t/{id}/ras/`): the client keys host apps send.
    public var ras: RASSettings
    /// OpenID CIBA: unknown hints, the approval's sign-in freshness, ping destinations.
    public var ciba: CIBASettings
    /// How people get in on their own: identifiers, sign-up, verification, recovery, factors.
    public var journeys: JourneySettings
    /// The WebAuthn relying party passkeys are bound to: its RP ID and extra origins.
    public var passkeys: PasskeySettings
    /// How codes and messages reach people: the SMTP relay and the SMS provider.
    public var courier: CourierSettings
    /// Bumped by the store on every change; part of every cache key of the tenant.
    public var configVersion: Int64
    public var createdAt: Date
    public var updatedAt: Date

    /// Default secure-storage cap (bytes), as the mini-app SDKs document it.
    public static let defaultStorageMaxSizeInBytes: Int64 = 2_000_000

    public init(
        id: String,
        displayName: String,
        status: TenantStatus = .active,
        platform: PlatformSettings = PlatformSettings(),
        provisioning: ProvisioningSettings = ProvisioningSettings(),
        storageMaxSizeInBytes: Int64 = Tenant.defaultStorageMaxSizeInBytes,
        cacheRules: ClientCacheRules = ClientCacheRules(),
        theme: Theme = Theme(),
        cacheTTLs: CacheTTLs = CacheTTLs(),
        hostApp: HostAppVersionPolicy = HostAppVersionPolicy(),
        featureFlags: [String: Bool] = [:],
        ras: RASSettings = RASSettings(),
        ciba: CIBASettings = CIBASettings(),
        journeys: JourneySettings = JourneySettings(),
        passkeys: PasskeySettings = PasskeySettings(),
        courier: CourierSettings = CourierSettings(),
        configVersion: Int64 = 1,
        createdAt: Date = Date(),
        updatedAt: Date = Date()
    ) {
        self.id = id
        self.displayName = displayName
        self.status = status
        self.platform = platform
        self.provisioning = provisioning
        self.storageMaxSizeInBytes = storageMaxSizeInBytes
        self.cacheRules = cacheRules
        self.theme = theme
        self.cacheTTLs = cacheTTLs
        self.hostApp = hostApp
        self.featureFlags = featureFlags
        self.ras = ras
        self.ciba = ciba
        self.journeys = journeys
        self.passkeys = passkeys
        self.courier = courier
        self.configVersion = configVersion
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Whether a tenant's routes are served.
public enum TenantStatus: String, Sendable, Codable, CaseIterable {
    case active
    case suspended
}

/// The tenant's mini-app platform (the "RAS" style API).
public struct PlatformSettings: Sendable, Equatable, Codable {
    public var baseURL: String?
    public var projectID: String?
    public var subscriptionKey: SecretValue?
    public var previewMode: Bool
    public var requireSignatureVerification: Bool

    public init(
        baseURL: String? = nil,
        projectID: String? = nil,
        subscriptionKey: SecretValue? = nil,
        previewMode: Bool = false,
        requireSignatureVerification: Bool = false
    ) {
        self.baseURL = baseURL
        self.projectID = projectID
        self.subscriptionKey = subscriptionKey
        self.previewMode = previewMode
        self.requireSignatureVerification = requireSignatureVerification
    }
}

/// The tenant's provisioning service (Mini App Center style).
public struct ProvisioningSettings: Sendable, Equatable, Codable {
    public var baseURL: String?
    public var superAppID: String?
    public var superAppVersion: String?
    public var apiKey: SecretValue?

    public init(
        baseURL: String? = nil, superAppID: String? = nil, superAppVersion: String? = nil, apiKey: SecretValue? = nil
    ) {
        self.baseURL = baseURL
        self.superAppID = superAppID
        self.superAppVersion = superAppVersion
        self.apiKey = apiKey
    }
}

/// Client-side cache rules for mini-app bundles.
public struct ClientCacheRules: Sendable, Equatable, Codable {
    /// Maximum cached mini apps; 0 = unlimited.
    public var maxCount: Int
    /// Maximum days since last use; 0 = no limit.
    public var maxDays: Int

    public init(maxCount: Int = 0, maxDays: Int = 0) {
        self.maxCount = maxCount
        self.maxDays = maxDays
    }
}

/// Host-app theme: colours (`#RRGGBB`) and an optional logo.
public struct Theme: Sendable, Equatable, Codable {
    public var primaryColor: String
    public var secondaryColor: String
    /// The tenant's logo, an absolute https URL (shown on the sign-in page; nil: none).
    public var logoURL: String?

    public init(primaryColor: String = "#BF0000", secondaryColor: String = "#FFFFFF", logoURL: String? = nil) {
        self.primaryColor = primaryColor
        self.secondaryColor = secondaryColor
        self.logoURL = logoURL
    }
}

/// How long the gateway keeps each kind of upstream answer, in seconds.
public struct CacheTTLs: Sendable, Equatable, Codable {
    public var manifestSeconds: Int
    public var catalogSeconds: Int
    public var localizationSeconds: Int
    public var publicKeySeconds: Int

    public init(
        manifestSeconds: Int = 300, catalogSeconds: Int = 60, localizationSeconds: Int = 300,
        publicKeySeconds: Int = 86_400
    ) {
        self.manifestSeconds = manifestSeconds
        self.catalogSeconds = catalogSeconds
        self.localizationSeconds = localizationSeconds
        self.publicKeySeconds = publicKeySeconds
    }
}

/// The tenant's Rakuten MiniApp SDK-compatible API. Host apps send `apiKey: ras-<client key>`;
/// the gateway keeps only the keys' SHA-256 hashes and puts the platform's real subscription
/// key on the upstream call itself. No key: the API answers 401 to everyone.
public struct RASSettings: Sendable, Equatable, Codable {
    /// The accepted client keys: the current one (`notAfter` nil) and, after a rotation, the
    /// previous ones until their `notAfter`.
    public var clientKeys: [RASClientKey]
    /// Host apps must send a gateway bearer token of the tenant as well (`Authorization`).
    public var requireBearer: Bool

    public init(clientKeys: [RASClientKey] = [], requireBearer: Bool = false) {
        self.clientKeys = clientKeys
        self.requireBearer = requireBearer
    }

    /// Whether `key` (what follows `ras-` in the `apiKey` header) is an accepted client key at `now`.
    public func accepts(_ key: String, now: Date) -> Bool {
        let hash = RASClientKey.hash(key)
        return clientKeys.contains { ConstantTime.equals($0.hash, hash) && ($0.notAfter.map { $0 > now } ?? true) }
    }

    /// These settings with `key` as the current client key. Every earlier key stays valid for
    /// at most `overlap` more (0: none does — the way to end a leaked key at once); expired
    /// ones are dropped.
    public func rotated(to key: String, overlap: TimeInterval, now: Date) -> RASSettings {
        var copy = self
        let end = now.addingTimeInterval(max(0, overlap))
        copy.clientKeys = clientKeys.compactMap { old in
            let until = min(old.notAfter ?? end, end)
            return until > now ? RASClientKey(hash: old.hash, notAfter: until) : nil
        } + [RASClientKey(hash: RASClientKey.hash(key), notAfter: nil)]
        return copy
    }
}

/// One accepted RAS client key, by its hash.
public struct RASClientKey: Sendable, Equatable, Codable {
    /// `sha256$<base64url>` of the key.
    public var hash: String
    /// When a rotated-out key stops working; nil for the current key.
    public var notAfter: Date?

    public init(hash: String, notAfter: Date?) {
        self.hash = hash
        self.notAfter = notAfter
    }

    /// The stored form of a key.
    public static func hash(_ key: String) -> String {
        "sha256$" + Base64URL.sha256(key)
    }

    /// The key an SDK's `apiKey` header carries: without the `ras-` prefix the SDKs add when missing.
    public static func fromHeader(_ apiKey: String?) -> String? {
        apiKey.map { $0.hasPrefix("ras-") ? String($0.dropFirst(4)) : $0 }
    }

    /// Client keys are 16 to 128 characters of `[A-Za-z0-9._~-]` (they travel in a header).
    public static func isValid(_ key: String) -> Bool {
        (16...128).contains(key.utf8.count)
            && key.utf8.allSatisfy { ASCIIByte.isLetterOrDigit($0) || "._~-".utf8.contains($0) }
    }
}
