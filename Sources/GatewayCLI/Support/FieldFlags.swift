import GatewayCore

/// The gatewayctl flag for each tenant field, so errors name what the operator typed.
extension TenantField {
    var flag: String {
        switch self {
        case .id: "tenant id"
        case .displayName: "--display-name"
        case .status: "status"
        case .platformBaseURL: "--platform-url"
        case .platformProjectID: "--project-id"
        case .platformSubscriptionKey: "--subscription-key"
        case .platformPreviewMode: "--preview-mode"
        case .platformRequireSignatureVerification: "--require-signature"
        case .provisioningBaseURL: "--provisioning-url"
        case .provisioningSuperAppID: "--super-app-id"
        case .provisioningSuperAppVersion: "--super-app-version"
        case .provisioningAPIKey: "--provisioning-api-key"
        case .storageMaxSizeInBytes: "--storage-max-bytes"
        case .cacheMaxCount: "--cache-max-count"
        case .cacheMaxDays: "--cache-max-days"
        case .themePrimaryColor: "--primary-color"
        case .themeSecondaryColor: "--secondary-color"
        case .themeLogoURL: "--logo-url"
        case .manifestTTL: "--manifest-ttl"
        case .catalogTTL: "--catalog-ttl"
        case .localizationTTL: "--localization-ttl"
        case .publicKeyTTL: "--public-key-ttl"
        case .hostAppMinimumVersion: "--host-min-version"
        case .hostAppLatestVersion: "--host-latest-version"
        case .hostAppUpdateURL: "--host-update-url"
        case .featureFlags: "--flag"
        case .rasClientKeys: "--ras-client-key"
        case .rasRequireBearer: "--ras-require-bearer"
        case .cibaRevealUnknownUsers: "--ciba-reveal-unknown-users"
        case .cibaRecentSignInSeconds: "--ciba-recent-sign-in"
        case .cibaAllowPrivateNotificationEndpoints: "--ciba-allow-private-endpoints"
        case .journeysSignUp, .journeysIdentifiers, .journeysVerify, .journeysRecovery, .journeysFactors,
            .journeysCodesPerIdentifierPerHour, .journeysSignUpsPerAddressPerHour, .journeysStepUp:
            "--journeys-file: \(rawValue)"
        case .passkeysRPId: "--passkeys-rp-id"
        case .passkeysOrigins: "--passkeys-origins"
        case .courierSMTPURL, .courierSMTPFrom, .courierSMTPStartTLS, .courierSMTPUsername, .courierSMTPPassword,
            .courierSMSProvider, .courierSMSURL, .courierSMSAccountSid, .courierSMSAuthToken, .courierSMSFrom,
            .courierSMSAllowedCountries, .courierSMSPerCountryPerHour:
            "--courier-file: \(rawValue)"
        }
    }
}

extension TenantValidationError {
    /// The message with the field replaced by its flag: `--platform-url must be ...`.
    var flagMessage: String { "\(field.flag) \(problem)" }
}
