/// Every configurable field of a ``Tenant``, named by its dotted path.
///
/// Used in validation errors, audit rows (changed field names, never values) and by the
/// CLI to map fields to flags.
public enum TenantField: String, Sendable, CaseIterable, Codable {
    case id
    case displayName
    case status
    case platformBaseURL = "platform.baseURL"
    case platformProjectID = "platform.projectID"
    case platformSubscriptionKey = "platform.subscriptionKey"
    case platformPreviewMode = "platform.previewMode"
    case platformRequireSignatureVerification = "platform.requireSignatureVerification"
    case provisioningBaseURL = "provisioning.baseURL"
    case provisioningSuperAppID = "provisioning.superAppID"
    case provisioningSuperAppVersion = "provisioning.superAppVersion"
    case provisioningAPIKey = "provisioning.apiKey"
    case storageMaxSizeInBytes
    case cacheMaxCount = "cacheRules.maxCount"
    case cacheMaxDays = "cacheRules.maxDays"
    case themePrimaryColor = "theme.primaryColor"
    case themeSecondaryColor = "theme.secondaryColor"
    case themeLogoURL = "theme.logoURL"
    case manifestTTL = "cacheTTLs.manifestSeconds"
    case catalogTTL = "cacheTTLs.catalogSeconds"
    case localizationTTL = "cacheTTLs.localizationSeconds"
    case publicKeyTTL = "cacheTTLs.publicKeySeconds"
    case hostAppMinimumVersion = "hostApp.minimumVersion"
    case hostAppLatestVersion = "hostApp.latestVersion"
    case hostAppUpdateURL = "hostApp.updateURL"
    case featureFlags
    case rasClientKeys = "ras.clientKeys"
    case rasRequireBearer = "ras.requireBearer"
    case cibaRevealUnknownUsers = "ciba.revealUnknownUsers"
    case cibaRecentSignInSeconds = "ciba.recentSignInSeconds"
    case cibaAllowPrivateNotificationEndpoints = "ciba.allowPrivateNotificationEndpoints"
    case journeysSignUp = "journeys.signUp"
    case journeysIdentifiers = "journeys.identifiers"
    case journeysVerify = "journeys.verify"
    case journeysRecovery = "journeys.recovery"
    case journeysFactors = "journeys.factors"
    case journeysCodesPerIdentifierPerHour = "journeys.codesPerIdentifierPerHour"
    case journeysSignUpsPerAddressPerHour = "journeys.signUpsPerAddressPerHour"
    case journeysStepUp = "journeys.stepUp"
    case passkeysRPId = "passkeys.rpId"
    case passkeysOrigins = "passkeys.origins"
    case courierSMTPURL = "courier.smtp.url"
    case courierSMTPFrom = "courier.smtp.from"
    case courierSMTPStartTLS = "courier.smtp.startTLS"
    case courierSMTPUsername = "courier.smtp.username"
    case courierSMTPPassword = "courier.smtp.password"
    case courierSMSProvider = "courier.sms.provider"
    case courierSMSURL = "courier.sms.url"
    case courierSMSAccountSid = "courier.sms.accountSid"
    case courierSMSAuthToken = "courier.sms.authToken"
    case courierSMSFrom = "courier.sms.from"
    case courierSMSAllowedCountries = "courier.sms.allowedCountries"
    case courierSMSPerCountryPerHour = "courier.sms.perCountryPerHour"

    /// Whether the field holds a secret (sealed at rest, masked in output).
    public var isSecret: Bool {
        [.platformSubscriptionKey, .provisioningAPIKey, .courierSMTPPassword, .courierSMSAuthToken].contains(self)
    }

    /// The authenticated context a secret of this field is sealed under, binding the
    /// sealed value to one tenant and one field: `tenant:<id>:<field path>`.
    public func sealingContext(tenantID: String) -> String {
        "tenant:\(tenantID):\(rawValue)"
    }

    /// The fields whose values differ between `old` and `new`, in declaration order.
    public static func changes(from old: Tenant, to new: Tenant) -> [TenantField] {
        allCases.filter { $0.plainValue(in: old) != $0.plainValue(in: new) }
    }

    /// The field's value as text, nil when unset. Secret fields come back in PLAINTEXT:
    /// mask them (``SecretValue/masked``) before they reach any output.
    public func plainValue(in t: Tenant) -> String? {
        switch self {
        case .id: t.id
        case .displayName: t.displayName
        case .status: t.status.rawValue
        case .platformBaseURL: t.platform.baseURL
        case .platformProjectID: t.platform.projectID
        case .platformSubscriptionKey: t.platform.subscriptionKey?.plaintext
        case .platformPreviewMode: String(t.platform.previewMode)
        case .platformRequireSignatureVerification: String(t.platform.requireSignatureVerification)
        case .provisioningBaseURL: t.provisioning.baseURL
        case .provisioningSuperAppID: t.provisioning.superAppID
        case .provisioningSuperAppVersion: t.provisioning.superAppVersion
        case .provisioningAPIKey: t.provisioning.apiKey?.plaintext
        case .storageMaxSizeInBytes: String(t.storageMaxSizeInBytes)
        case .cacheMaxCount: String(t.cacheRules.maxCount)
        case .cacheMaxDays: String(t.cacheRules.maxDays)
        case .themePrimaryColor: t.theme.primaryColor
        case .themeSecondaryColor: t.theme.secondaryColor
        case .themeLogoURL: t.theme.logoURL
        case .manifestTTL: String(t.cacheTTLs.manifestSeconds)
        case .catalogTTL: String(t.cacheTTLs.catalogSeconds)
        case .localizationTTL: String(t.cacheTTLs.localizationSeconds)
        case .publicKeyTTL: String(t.cacheTTLs.publicKeySeconds)
        case .hostAppMinimumVersion: t.hostApp.minimumVersion
        case .hostAppLatestVersion: t.hostApp.latestVersion
        case .hostAppUpdateURL: t.hostApp.updateURL
        case .featureFlags: Self.flagsText(t.featureFlags)
        case .rasClientKeys:
            t.ras.clientKeys.isEmpty
                ? nil
                : t.ras.clientKeys.map { $0.hash + ($0.notAfter.map { "@" + RFC3339.string(from: $0) } ?? "") }.joined(
                    separator: ",")
        case .rasRequireBearer: String(t.ras.requireBearer)
        case .cibaRevealUnknownUsers: String(t.ciba.revealUnknownUsers)
        case .cibaRecentSignInSeconds: String(t.ciba.recentSignInSeconds)
        case .cibaAllowPrivateNotificationEndpoints: String(t.ciba.allowPrivateNotificationEndpoints)
        case .journeysSignUp: String(t.journeys.signUp)
        case .journeysIdentifiers: t.journeys.identifiers.map(\.rawValue).joined(separator: ",")
        case .journeysVerify: t.journeys.verify.map(\.rawValue).joined(separator: ",")
        case .journeysRecovery: t.journeys.recovery.map(\.rawValue).joined(separator: ",")
        case .journeysFactors: t.journeys.factors.map(\.rawValue).joined(separator: ",")
        case .journeysCodesPerIdentifierPerHour: String(t.journeys.codesPerIdentifierPerHour)
        case .journeysSignUpsPerAddressPerHour: String(t.journeys.signUpsPerAddressPerHour)
        case .journeysStepUp:
            t.journeys.stepUp.isEmpty
                ? nil
                : t.journeys.stepUp.sorted { $0.key < $1.key }
                    .map { "\($0.key)=\($0.value.map(\.rawValue).joined(separator: "+"))" }.joined(separator: ",")
        case .passkeysRPId: t.passkeys.rpId
        case .passkeysOrigins: t.passkeys.origins.isEmpty ? nil : t.passkeys.origins.joined(separator: ",")
        case .courierSMTPURL: t.courier.smtp?.url
        case .courierSMTPFrom: t.courier.smtp?.from
        case .courierSMTPStartTLS: t.courier.smtp?.startTLS.rawValue
        case .courierSMTPUsername: t.courier.smtp?.username
        case .courierSMTPPassword: t.courier.smtp?.password?.plaintext
        case .courierSMSProvider: t.courier.sms?.provider.rawValue
        case .courierSMSURL: t.courier.sms?.url
        case .courierSMSAccountSid: t.courier.sms?.accountSid
        case .courierSMSAuthToken: t.courier.sms?.authToken?.plaintext
        case .courierSMSFrom: t.courier.sms?.from
        case .courierSMSAllowedCountries: t.courier.sms?.allowedCountries.joined(separator: ",")
        case .courierSMSPerCountryPerHour: t.courier.sms.map { String($0.perCountryPerHour) }
        }
    }

    /// Feature flags as one line, sorted by name (`beta=true,dark-mode=false`); nil when none.
    public static func flagsText(_ flags: [String: Bool]) -> String? {
        flags.isEmpty ? nil : flags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
}
