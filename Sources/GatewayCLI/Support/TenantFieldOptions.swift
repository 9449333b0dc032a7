import ArgumentParser
import Foundation
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
    @Option(
        name: .customLong("ciba-reveal-unknown-users"),
        help: "CIBA answers unknown_user_id for a hint that names nobody (true/false; default false: never revealed).")
    var cibaRevealUnknownUsers: Bool?
    @Option(
        name: .customLong("ciba-recent-sign-in"), parsing: .unconditional,
        help:
            "Seconds the host app's sign-in stays fresh enough to approve a CIBA request without a step-up (30-3600; default 300)."
    )
    var cibaRecentSignIn: Int?
    @Option(
        name: .customLong("ciba-allow-private-endpoints"),
        help:
            "CIBA ping notifications may go to private, loopback and link-local addresses (true/false; default false).")
    var cibaAllowPrivateEndpoints: Bool?
    @Option(
        name: .customLong("journeys-file"),
        help: ArgumentHelp(
            "A JSON file of the journey settings to change: signUp, identifiers, verify, recovery, factors, "
                + "codesPerIdentifierPerHour, signUpsPerAddressPerHour (docs/journeys.md); a list given replaces "
                + "the list.",
            valueName: "file"))
    var journeysFile: String?
    @Option(
        name: .customLong("courier-file"),
        help: ArgumentHelp(
            "A JSON file of the courier settings to change: smtp {url, from, startTLS, username, password} and "
                + "sms {provider, url, accountSid, authToken, from, allowedCountries, perCountryPerHour} "
                + "(docs/journeys.md); secrets are sealed, an empty url removes the channel.",
            valueName: "file"))
    var courierFile: String?
    @Option(
        name: .customLong("passkeys-rp-id"),
        help: "The domain passkeys are bound to (docs/passkeys.md; empty: the host of the tenant's public URL).")
    var passkeysRPId: String?
    @Option(
        name: .customLong("passkeys-origins"),
        help: ArgumentHelp(
            "Origins besides the hosted pages' that passkey ceremonies may come from, comma-separated: "
                + "https://host[:port] or android:apk-key-hash:<base64url SHA-256> (empty: none).",
            valueName: "origins"))
    var passkeysOrigins: String?

    /// Whether no field flag was given.
    var isEmpty: Bool {
        let values: [Any?] = [
            displayName, projectID, subscriptionKey, platformURL, previewMode, requireSignature,
            provisioningURL, superAppID, superAppVersion, provisioningAPIKey, storageMaxSizeInBytes,
            cacheMaxCount, cacheMaxDays, primaryColor, secondaryColor, logoURL,
            manifestTTL, catalogTTL, localizationTTL, publicKeyTTL,
            hostMinVersion, hostLatestVersion, hostUpdateURL, rasClientKey, rasRequireBearer,
            cibaRevealUnknownUsers, cibaRecentSignIn, cibaAllowPrivateEndpoints, journeysFile, courierFile,
            passkeysRPId, passkeysOrigins,
        ]
        return values.allSatisfy { $0 == nil } && setFlags.isEmpty && unsetFlags.isEmpty
    }

    /// The RAS client key to set: the given one, or a new random one for `generate` (nil: none given).
    func newRASClientKey() -> String? {
        rasClientKey == "generate" ? Base64URL.random(byteCount: 24) : rasClientKey
    }

    /// The patch the flags say. `rasKey` is the client key to rotate to
    /// (``newRASClientKey()``, resolved once by the caller). Throws ``CLIError/invalid(_:)``
    /// for a malformed `--flag`/`--unset-flag` or RAS key, naming the flag.
    func patch(rasKey: String? = nil) throws -> TenantPatch {
        let flags = try FeatureFlagChanges(set: setFlags, unset: unsetFlags)
        if let rasKey {
            guard RASClientKey.isValid(rasKey) else {
                throw CLIError.invalid(
                    "--ras-client-key must be 16-128 characters of A-Z, a-z, 0-9, '.', '_', '~' and '-', or generate")
            }
            guard (0...TenantPatch.maxClientKeyOverlapSeconds).contains(rasKeyOverlap) else {
                throw CLIError.invalid("--ras-key-overlap must be 0 to 2592000 seconds")
            }
        }
        func section<T: Equatable>(_ value: T, empty: T) -> T? { value == empty ? nil : value }
        return TenantPatch(
            displayName: displayName,
            platform: section(
                TenantPatch.Platform(
                    baseURL: platformURL, projectID: projectID, subscriptionKey: subscriptionKey,
                    previewMode: previewMode, requireSignatureVerification: requireSignature), empty: .init()),
            provisioning: section(
                TenantPatch.Provisioning(
                    baseURL: provisioningURL, superAppID: superAppID, superAppVersion: superAppVersion,
                    apiKey: provisioningAPIKey), empty: .init()),
            storageMaxSizeInBytes: storageMaxSizeInBytes,
            cacheRules: section(TenantPatch.CacheRules(maxCount: cacheMaxCount, maxDays: cacheMaxDays), empty: .init()),
            theme: section(
                TenantPatch.Theme(primaryColor: primaryColor, secondaryColor: secondaryColor, logoURL: logoURL),
                empty: .init()),
            cacheTTLs: section(
                TenantPatch.CacheTTLs(
                    manifestSeconds: manifestTTL, catalogSeconds: catalogTTL, localizationSeconds: localizationTTL,
                    publicKeySeconds: publicKeyTTL), empty: .init()),
            hostApp: section(
                TenantPatch.HostApp(
                    minimumVersion: hostMinVersion, latestVersion: hostLatestVersion, updateURL: hostUpdateURL),
                empty: .init()),
            featureFlags: flags.values.isEmpty ? nil : flags.values,
            removeFeatureFlags: flags.removals.isEmpty ? nil : flags.removals.sorted(),
            ras: section(
                TenantPatch.RAS(
                    clientKey: rasKey, clientKeyOverlapSeconds: rasKey == nil ? nil : rasKeyOverlap,
                    requireBearer: rasRequireBearer), empty: .init()),
            ciba: section(
                TenantPatch.CIBA(
                    revealUnknownUsers: cibaRevealUnknownUsers, recentSignInSeconds: cibaRecentSignIn,
                    allowPrivateNotificationEndpoints: cibaAllowPrivateEndpoints), empty: .init()),
            journeys: try journeysFile.map(Self.journeys(file:)),
            courier: try courierFile.map(Self.courier(file:)),
            passkeys: section(
                TenantPatch.Passkeys(
                    rpId: passkeysRPId,
                    origins: passkeysOrigins.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }),
                empty: .init()))
    }

    /// The journey settings a `--journeys-file` names: a JSON object of ``TenantPatch/Journeys``'s
    /// members and nothing else (a misspelt member is refused, not ignored).
    static func journeys(file: String) throws -> TenantPatch.Journeys {
        try SettingsFile.read(
            TenantPatch.Journeys.self, file: file, flag: "--journeys-file",
            known: [
                "signUp", "identifiers", "verify", "recovery", "factors", "codesPerIdentifierPerHour",
                "signUpsPerAddressPerHour",
            ],
            hint: "identifiers are username, email, phone; verify and recovery email, phone; "
                + "factors password, email-code, sms-code, totp, passkey; signUp true or false")
    }

    /// The courier settings a `--courier-file` names: a JSON object of ``TenantPatch/Courier``'s
    /// members (`smtp`, `sms`) and nothing else.
    static func courier(file: String) throws -> TenantPatch.Courier {
        try SettingsFile.read(
            TenantPatch.Courier.self, file: file, flag: "--courier-file", known: ["smtp", "sms"],
            nested: [
                "smtp": ["url", "from", "startTLS", "username", "password"],
                "sms": ["provider", "url", "accountSid", "authToken", "from", "allowedCountries", "perCountryPerHour"],
            ],
            hint: "smtp members are texts (startTLS required or off); sms provider is twilio or webhook, "
                + "allowedCountries a list of calling codes, perCountryPerHour a number")
    }

    /// Copies every given flag into `tenant` (empty strings clear optional fields) and
    /// validates it; errors name the flag (``CLIError/invalid(_:)``).
    func apply(to tenant: inout Tenant, rasKey: String? = nil, now: Date = Date()) throws {
        do {
            try patch(rasKey: rasKey).apply(to: &tenant, now: now)
        } catch let error as TenantValidationError {
            throw CLIError.invalid(error.flagMessage)
        }
    }

    /// Checks each given flag on its own, before any database is opened. Settings checked
    /// against each other (the journeys' and the courier's) wait for the stored tenant: a file
    /// may change one member of settings the tenant already has.
    func validate() throws {
        let probe = Tenant(id: "probe", displayName: displayName ?? "probe")
        do {
            let key = rasClientKey == "generate" ? "probe-key-0123456789" : rasClientKey
            let own = try patch(rasKey: key).problems(applyingTo: probe, now: Date()).filter {
                !$0.field.rawValue.hasPrefix("journeys.") && !$0.field.rawValue.hasPrefix("courier.")
            }
            if let first = own.first { throw CLIError.invalid(first.flagMessage) }
        } catch let error as CLIError {
            throw ValidationError(error.description)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
