import Foundation

/// A change to some of a tenant's configuration fields: what `gatewayctl tenant update`'s
/// flags and the admin API's `PATCH /admin/v1/tenants/{tenant}` (a JSON merge patch) say.
///
/// Members mirror ``TenantDocument``'s, so a patch reads like the document it changes. An
/// absent member leaves the field alone; an empty string clears an optional text field (the
/// admin contract has no `null`). Secrets are plaintext here and nowhere in an answer.
public struct TenantPatch: Codable, Sendable, Equatable {
    public struct Platform: Codable, Sendable, Equatable {
        public var baseURL: String?
        public var projectID: String?
        public var subscriptionKey: String?
        public var previewMode: Bool?
        public var requireSignatureVerification: Bool?

        public init(
            baseURL: String? = nil, projectID: String? = nil, subscriptionKey: String? = nil, previewMode: Bool? = nil,
            requireSignatureVerification: Bool? = nil
        ) {
            self.baseURL = baseURL
            self.projectID = projectID
            self.subscriptionKey = subscriptionKey
            self.previewMode = previewMode
            self.requireSignatureVerification = requireSignatureVerification
        }
    }

    public struct Provisioning: Codable, Sendable, Equatable {
        public var baseURL: String?
        public var superAppID: String?
        public var superAppVersion: String?
        public var apiKey: String?

        public init(
            baseURL: String? = nil, superAppID: String? = nil, superAppVersion: String? = nil, apiKey: String? = nil
        ) {
            self.baseURL = baseURL
            self.superAppID = superAppID
            self.superAppVersion = superAppVersion
            self.apiKey = apiKey
        }
    }

    public struct CacheRules: Codable, Sendable, Equatable {
        public var maxCount: Int?
        public var maxDays: Int?

        public init(maxCount: Int? = nil, maxDays: Int? = nil) {
            self.maxCount = maxCount
            self.maxDays = maxDays
        }
    }

    public struct Theme: Codable, Sendable, Equatable {
        public var primaryColor: String?
        public var secondaryColor: String?
        public var logoURL: String?

        public init(primaryColor: String? = nil, secondaryColor: String? = nil, logoURL: String? = nil) {
            self.primaryColor = primaryColor
            self.secondaryColor = secondaryColor
            self.logoURL = logoURL
        }
    }

    public struct CacheTTLs: Codable, Sendable, Equatable {
        public var manifestSeconds: Int?
        public var catalogSeconds: Int?
        public var localizationSeconds: Int?
        public var publicKeySeconds: Int?

        public init(
            manifestSeconds: Int? = nil, catalogSeconds: Int? = nil, localizationSeconds: Int? = nil,
            publicKeySeconds: Int? = nil
        ) {
            self.manifestSeconds = manifestSeconds
            self.catalogSeconds = catalogSeconds
            self.localizationSeconds = localizationSeconds
            self.publicKeySeconds = publicKeySeconds
        }
    }

    public struct HostApp: Codable, Sendable, Equatable {
        public var minimumVersion: String?
        public var latestVersion: String?
        public var updateURL: String?

        public init(minimumVersion: String? = nil, latestVersion: String? = nil, updateURL: String? = nil) {
            self.minimumVersion = minimumVersion
            self.latestVersion = latestVersion
            self.updateURL = updateURL
        }
    }

    /// The RAS-compatible API: a new client key (stored hashed; earlier keys stay valid for
    /// `clientKeyOverlapSeconds`, default 86400) and whether a bearer token is needed too.
    public struct RAS: Codable, Sendable, Equatable {
        public var clientKey: String?
        public var clientKeyOverlapSeconds: Int?
        public var requireBearer: Bool?

        public init(clientKey: String? = nil, clientKeyOverlapSeconds: Int? = nil, requireBearer: Bool? = nil) {
            self.clientKey = clientKey
            self.clientKeyOverlapSeconds = clientKeyOverlapSeconds
            self.requireBearer = requireBearer
        }
    }

    /// OpenID CIBA (``CIBASettings``).
    public struct CIBA: Codable, Sendable, Equatable {
        public var revealUnknownUsers: Bool?
        public var recentSignInSeconds: Int?
        public var allowPrivateNotificationEndpoints: Bool?

        public init(
            revealUnknownUsers: Bool? = nil, recentSignInSeconds: Int? = nil,
            allowPrivateNotificationEndpoints: Bool? = nil
        ) {
            self.revealUnknownUsers = revealUnknownUsers
            self.recentSignInSeconds = recentSignInSeconds
            self.allowPrivateNotificationEndpoints = allowPrivateNotificationEndpoints
        }
    }

    /// How people get in on their own (``JourneySettings``): a list given replaces the list.
    public struct Journeys: Codable, Sendable, Equatable {
        public var signUp: Bool?
        public var identifiers: [JourneySettings.Identifier]?
        public var verify: [JourneySettings.Channel]?
        public var recovery: [JourneySettings.Channel]?
        public var factors: [JourneySettings.Factor]?
        public var codesPerIdentifierPerHour: Int?
        public var signUpsPerAddressPerHour: Int?
        /// The tenant's own `acr_values` classes; given, it replaces them all.
        public var stepUp: [String: [JourneySettings.Factor]]?

        public init(
            signUp: Bool? = nil, identifiers: [JourneySettings.Identifier]? = nil, verify: [JourneySettings.Channel]? = nil,
            recovery: [JourneySettings.Channel]? = nil, factors: [JourneySettings.Factor]? = nil,
            codesPerIdentifierPerHour: Int? = nil, signUpsPerAddressPerHour: Int? = nil,
            stepUp: [String: [JourneySettings.Factor]]? = nil
        ) {
            self.stepUp = stepUp
            self.signUpsPerAddressPerHour = signUpsPerAddressPerHour
            self.signUp = signUp
            self.identifiers = identifiers
            self.verify = verify
            self.recovery = recovery
            self.factors = factors
            self.codesPerIdentifierPerHour = codesPerIdentifierPerHour
        }
    }

    /// The courier's relay and SMS provider: members given are set on the present settings (or
    /// start new ones); an empty `url` removes that channel. Secrets are write-only.
    public struct Courier: Codable, Sendable, Equatable {
        public struct SMTP: Codable, Sendable, Equatable {
            public var url: String?
            public var from: String?
            public var startTLS: SMTPRelay.Security?
            /// Empty removes the login (and the password).
            public var username: String?
            public var password: String?

            public init(
                url: String? = nil, from: String? = nil, startTLS: SMTPRelay.Security? = nil, username: String? = nil,
                password: String? = nil
            ) {
                self.url = url
                self.from = from
                self.startTLS = startTLS
                self.username = username
                self.password = password
            }
        }

        public struct SMS: Codable, Sendable, Equatable {
            public var provider: SMSSettings.Provider?
            public var url: String?
            public var accountSid: String?
            public var authToken: String?
            public var from: String?
            public var allowedCountries: [String]?
            public var perCountryPerHour: Int?

            public init(
                provider: SMSSettings.Provider? = nil, url: String? = nil, accountSid: String? = nil,
                authToken: String? = nil, from: String? = nil, allowedCountries: [String]? = nil,
                perCountryPerHour: Int? = nil
            ) {
                self.provider = provider
                self.url = url
                self.accountSid = accountSid
                self.authToken = authToken
                self.from = from
                self.allowedCountries = allowedCountries
                self.perCountryPerHour = perCountryPerHour
            }
        }

        public var smtp: SMTP?
        public var sms: SMS?

        public init(smtp: SMTP? = nil, sms: SMS? = nil) {
            self.smtp = smtp
            self.sms = sms
        }

        /// Sets the given members on `settings`. A secret is never carried to another host or
        /// provider: a patch that moves the relay (or the SMS provider) elsewhere without giving
        /// its secret again is refused, so a password meant for one server is not sent to another.
        func apply(to settings: inout CourierSettings) throws(TenantValidationError) {
            func optional(_ value: String?) -> String?? { value.map { $0.isEmpty ? nil : $0 } }
            func host(_ url: String) -> String? { URLComponents(string: url)?.host?.lowercased() }
            if let smtp {
                if smtp.url == "" {
                    settings.smtp = nil
                } else {
                    var relay = settings.smtp ?? SMTPRelay(url: "", from: "")
                    if let value = smtp.url {
                        if relay.password != nil, smtp.password == nil, host(value) != host(relay.url) {
                            throw TenantValidationError(
                                field: .courierSMTPPassword, problem: "must be given again when the relay moves to another host")
                        }
                        relay.url = value
                    }
                    if let value = smtp.from { relay.from = value }
                    if let value = smtp.startTLS { relay.startTLS = value }
                    if let value = optional(smtp.username) {
                        relay.username = value
                        if value == nil { relay.password = nil }
                    }
                    if let value = smtp.password { relay.password = SecretValue(value) }
                    settings.smtp = relay
                }
            }
            if let sms {
                if sms.url == "" {
                    settings.sms = nil
                } else {
                    var provider = settings.sms ?? SMSSettings(provider: .twilio, url: "", from: "", allowedCountries: [])
                    let moved = (sms.provider.map { $0 != provider.provider } ?? false)
                        || (sms.url.map { host($0) != host(provider.url) } ?? false)
                    if provider.authToken != nil, sms.authToken == nil, moved {
                        throw TenantValidationError(
                            field: .courierSMSAuthToken,
                            problem: "must be given again when the provider or its host changes")
                    }
                    if let value = sms.provider { provider.provider = value }
                    if let value = sms.url { provider.url = value }
                    if let value = optional(sms.accountSid) { provider.accountSid = value }
                    if let value = sms.authToken { provider.authToken = SecretValue(value) }
                    if let value = sms.from { provider.from = value }
                    if let value = sms.allowedCountries { provider.allowedCountries = value }
                    if let value = sms.perCountryPerHour { provider.perCountryPerHour = value }
                    settings.sms = provider
                }
            }
        }
    }

    public var displayName: String?
    public var platform: Platform?
    public var provisioning: Provisioning?
    public var storageMaxSizeInBytes: Int64?
    public var cacheRules: CacheRules?
    public var theme: Theme?
    public var cacheTTLs: CacheTTLs?
    public var hostApp: HostApp?
    /// Flags to set, by name (the others stay).
    public var featureFlags: [String: Bool]?
    /// Flags to remove (removing an absent one changes nothing).
    public var removeFeatureFlags: [String]?
    public var ras: RAS?
    public var ciba: CIBA?
    public var journeys: Journeys?
    public var courier: Courier?
    public var passkeys: Passkeys?

    /// The WebAuthn relying party (``PasskeySettings``): an empty `rpId` goes back to the
    /// public URL's host; a list of origins given replaces the list.
    public struct Passkeys: Codable, Sendable, Equatable {
        public var rpId: String?
        public var origins: [String]?

        public init(rpId: String? = nil, origins: [String]? = nil) {
            self.rpId = rpId
            self.origins = origins
        }
    }

    /// Seconds an earlier RAS client key stays valid after a new one when the patch does not say.
    public static let defaultClientKeyOverlapSeconds = 86_400
    /// The longest overlap: 30 days.
    public static let maxClientKeyOverlapSeconds = 2_592_000

    public init(
        displayName: String? = nil, platform: Platform? = nil, provisioning: Provisioning? = nil,
        storageMaxSizeInBytes: Int64? = nil, cacheRules: CacheRules? = nil, theme: Theme? = nil,
        cacheTTLs: CacheTTLs? = nil, hostApp: HostApp? = nil, featureFlags: [String: Bool]? = nil,
        removeFeatureFlags: [String]? = nil, ras: RAS? = nil, ciba: CIBA? = nil, journeys: Journeys? = nil,
        courier: Courier? = nil, passkeys: Passkeys? = nil
    ) {
        self.passkeys = passkeys
        self.displayName = displayName
        self.platform = platform
        self.provisioning = provisioning
        self.storageMaxSizeInBytes = storageMaxSizeInBytes
        self.cacheRules = cacheRules
        self.theme = theme
        self.cacheTTLs = cacheTTLs
        self.hostApp = hostApp
        self.featureFlags = featureFlags
        self.removeFeatureFlags = removeFeatureFlags
        self.ras = ras
        self.ciba = ciba
        self.journeys = journeys
        self.courier = courier
    }

    /// Copies every given member into `tenant` (empty text clears an optional field) and
    /// validates the result. Throws ``TenantValidationError`` naming the first bad field;
    /// `tenant` is then unchanged.
    public func apply(to tenant: inout Tenant, now: Date) throws(TenantValidationError) {
        var copy = tenant
        try applyFields(to: &copy, now: now)
        try TenantValidator.validate(copy)
        tenant = copy
    }

    /// Every problem `tenant` would have with this patch applied, in field order (empty when
    /// ``apply(to:now:)`` would succeed); nothing is changed.
    public func problems(applyingTo tenant: Tenant, now: Date) -> [TenantValidationError] {
        var copy = tenant
        do throws(TenantValidationError) {
            try applyFields(to: &copy, now: now)
        } catch {
            return [error]
        }
        return TenantValidator.problems(copy)
    }

    private func applyFields(to tenant: inout Tenant, now: Date) throws(TenantValidationError) {
        func optional(_ value: String?) -> String?? { value.map { $0.isEmpty ? nil : $0 } }
        if let displayName { tenant.displayName = displayName }
        if let platform {
            if let value = optional(platform.baseURL) { tenant.platform.baseURL = value }
            if let value = optional(platform.projectID) { tenant.platform.projectID = value }
            if let value = optional(platform.subscriptionKey) {
                tenant.platform.subscriptionKey = value.map(SecretValue.init)
            }
            if let value = platform.previewMode { tenant.platform.previewMode = value }
            if let value = platform.requireSignatureVerification {
                tenant.platform.requireSignatureVerification = value
            }
        }
        if let provisioning {
            if let value = optional(provisioning.baseURL) { tenant.provisioning.baseURL = value }
            if let value = optional(provisioning.superAppID) { tenant.provisioning.superAppID = value }
            if let value = optional(provisioning.superAppVersion) { tenant.provisioning.superAppVersion = value }
            if let value = optional(provisioning.apiKey) { tenant.provisioning.apiKey = value.map(SecretValue.init) }
        }
        if let storageMaxSizeInBytes { tenant.storageMaxSizeInBytes = storageMaxSizeInBytes }
        if let value = cacheRules?.maxCount { tenant.cacheRules.maxCount = value }
        if let value = cacheRules?.maxDays { tenant.cacheRules.maxDays = value }
        if let theme {
            if let value = theme.primaryColor { tenant.theme.primaryColor = value }
            if let value = theme.secondaryColor { tenant.theme.secondaryColor = value }
            if let value = optional(theme.logoURL) { tenant.theme.logoURL = value }
        }
        if let cacheTTLs {
            if let value = cacheTTLs.manifestSeconds { tenant.cacheTTLs.manifestSeconds = value }
            if let value = cacheTTLs.catalogSeconds { tenant.cacheTTLs.catalogSeconds = value }
            if let value = cacheTTLs.localizationSeconds { tenant.cacheTTLs.localizationSeconds = value }
            if let value = cacheTTLs.publicKeySeconds { tenant.cacheTTLs.publicKeySeconds = value }
        }
        if let hostApp {
            if let value = optional(hostApp.minimumVersion) { tenant.hostApp.minimumVersion = value }
            if let value = optional(hostApp.latestVersion) { tenant.hostApp.latestVersion = value }
            if let value = optional(hostApp.updateURL) { tenant.hostApp.updateURL = value }
        }
        try applyFlags(to: &tenant.featureFlags)
        if let key = ras?.clientKey {
            guard RASClientKey.isValid(key) else {
                throw TenantValidationError(
                    field: .rasClientKeys, problem: "must be 16-128 characters of A-Z, a-z, 0-9, '.', '_', '~' and '-'")
            }
            let overlap = ras?.clientKeyOverlapSeconds ?? Self.defaultClientKeyOverlapSeconds
            guard (0...Self.maxClientKeyOverlapSeconds).contains(overlap) else {
                throw TenantValidationError(field: .rasClientKeys, problem: "overlap must be 0 to 2592000 seconds")
            }
            tenant.ras = tenant.ras.rotated(to: key, overlap: TimeInterval(overlap), now: now)
        }
        if let value = ras?.requireBearer { tenant.ras.requireBearer = value }
        if let value = ciba?.revealUnknownUsers { tenant.ciba.revealUnknownUsers = value }
        if let value = ciba?.recentSignInSeconds { tenant.ciba.recentSignInSeconds = value }
        if let value = ciba?.allowPrivateNotificationEndpoints { tenant.ciba.allowPrivateNotificationEndpoints = value }
        if let journeys {
            if let value = journeys.signUp { tenant.journeys.signUp = value }
            if let value = journeys.identifiers { tenant.journeys.identifiers = value }
            if let value = journeys.verify { tenant.journeys.verify = value }
            if let value = journeys.recovery { tenant.journeys.recovery = value }
            if let value = journeys.factors { tenant.journeys.factors = value }
            if let value = journeys.codesPerIdentifierPerHour { tenant.journeys.codesPerIdentifierPerHour = value }
            if let value = journeys.signUpsPerAddressPerHour { tenant.journeys.signUpsPerAddressPerHour = value }
            if let value = journeys.stepUp { tenant.journeys.stepUp = value }
        }
        try courier?.apply(to: &tenant.courier)
        if let rpId = passkeys?.rpId { tenant.passkeys.rpId = rpId.isEmpty ? nil : rpId.lowercased() }
        if let origins = passkeys?.origins { tenant.passkeys.origins = origins }
    }

    private func applyFlags(to flags: inout [String: Bool]) throws(TenantValidationError) {
        let removals = removeFeatureFlags ?? []
        for name in removals {
            try TenantValidator.validateFeatureFlagName(name)
            if featureFlags?[name] != nil {
                throw TenantValidationError(
                    field: .featureFlags, problem: "both sets and removes \(TenantValidationError.quote(name))")
            }
            flags[name] = nil
        }
        flags.merge(featureFlags ?? [:]) { _, new in new }
    }

    /// Whether the patch names no field.
    public var isEmpty: Bool { self == TenantPatch() }
}
