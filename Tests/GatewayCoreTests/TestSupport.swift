import Synchronization
import Foundation
@testable import GatewayCore
@testable import GatewaySQLite

/// A fresh folder under the system temp dir; tests `defer { folder.remove() }`.
struct TemporaryFolder: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("gateway-core-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }
}

enum Fixtures {
    /// A fixed master key so several store instances (like several processes) agree.
    static let key = try! MasterKey(base64: Data(repeating: 7, count: 32).base64EncodedString())
    static let sealer = SecretSealer(masterKey: key)

    /// A tenant with every field set to a non-default value.
    static func fullTenant(id: String = "acme") -> Tenant {
        Tenant(
            id: id,
            displayName: "Acme Super App ✓",
            status: .suspended,
            platform: PlatformSettings(
                baseURL: "https://ras.example.com/api", projectID: "project-42",
                subscriptionKey: SecretValue("ras-K1-SECRET-MARKER"), previewMode: true,
                requireSignatureVerification: true
            ),
            provisioning: ProvisioningSettings(
                baseURL: "http://prov.example.com:8080/v2", superAppID: "super-1",
                superAppVersion: "3.2.1", apiKey: SecretValue("API-KEY-SECRET-MARKER")
            ),
            storageMaxSizeInBytes: 12_345,
            cacheRules: ClientCacheRules(maxCount: 17, maxDays: 30),
            theme: Theme(
                primaryColor: "#123456", secondaryColor: "#abcdef", logoURL: "https://cdn.example.com/acme/logo.svg"),
            cacheTTLs: CacheTTLs(
                manifestSeconds: 11, catalogSeconds: 12, localizationSeconds: 13, publicKeySeconds: 14),
            hostApp: HostAppVersionPolicy(
                minimumVersion: "2.1", latestVersion: "2.4.0", updateURL: "https://apps.example.com/acme"),
            featureFlags: ["beta.checkout": true, "dark-mode": false],
            ras: RASSettings(
                clientKeys: [RASClientKey(hash: RASClientKey.hash("fixture-client-key-0123"), notAfter: nil)],
                requireBearer: true),
            ciba: CIBASettings(
                revealUnknownUsers: true, recentSignInSeconds: 90, allowPrivateNotificationEndpoints: true),
            journeys: JourneySettings(
                signUp: true, identifiers: [.phone, .email], verify: [.email, .phone], recovery: [.email],
                factors: [.smsCode, .password, .totp], codesPerIdentifierPerHour: 3,
                signUpsPerAddressPerHour: 250, stepUp: ["urn:acme:loa:2": [.password, .totp]]),
            passkeys: PasskeySettings(
                rpId: "acme.example",
                origins: ["https://shop.acme.example", "android:apk-key-hash:" + String(repeating: "A", count: 43)]),
            courier: CourierSettings(
                smtp: SMTPRelay(
                    url: "smtp://127.0.0.1:2525", from: "no-reply@acme.example", startTLS: .off, username: "mailer",
                    password: SecretValue("SMTP-PASSWORD-SECRET-MARKER")),
                sms: SMSSettings(
                    provider: .webhook, url: "https://sms.acme.example/send", accountSid: "AC0123",
                    authToken: SecretValue("SMS-TOKEN-SECRET-MARKER"), from: "Acme", allowedCountries: ["81", "1"],
                    perCountryPerHour: 77))
        )
    }

    /// SQL (both engines) inserting a tenant row with only the columns of migration
    /// `v1-tenants`, as an older build left it: display name `id` capitalized, cache rules
    /// 3 / 7 days, TTLs 10/20/30/40.
    static func v1TenantRow(id: String, configVersion: Int64) -> String {
        """
        INSERT INTO tenants (id, display_name, status, platform_preview_mode, platform_require_signature,
            storage_max_size_bytes, cache_max_count, cache_max_days, theme_primary_color, theme_secondary_color,
            ttl_manifest_seconds, ttl_catalog_seconds, ttl_localization_seconds, ttl_public_key_seconds,
            config_version, created_at_ms, updated_at_ms)
        VALUES ('\(id)', '\(id.capitalized)', 'active', false, true, 5000, 3, 7, '#000000', '#FFFFFF', 10, 20, 30, 40, \(configVersion),
            1700000000000, 1700000000000)
        """
    }

    static func store(_ folder: TemporaryFolder, name: String = "gateway.sqlite") throws -> SQLiteTenantStore {
        try SQLiteTenantStore.open(path: folder.file(name), sealer: sealer)
    }
}

/// Polls `condition` every 10 ms until it holds or `limit` passes; its last value.
func eventually(within limit: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
    let until = ContinuousClock.now + limit
    while ContinuousClock.now < until {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// A latch: ``wait()`` returns once ``open()`` has been called, whether or not the waiting
/// task is cancelled (work that ignores cancellation, held for exactly as long as a test needs).
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    var isOpen: Bool { state.withLock { $0.isOpen } }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
